import SmartStack
import SmartStackDatasets
import Testing

@Suite struct ImportStudentLifeTests {
    // 2013-03-09 12:00 EST = 1362848400; DST starts 2013-03-10 07:00Z = 1362898800.
    private let foreground = """
        User,timestamp,top_package,top_class
        00,1362848400,com.google.android.gm,Mail
        00,1362849600,com.google.android.gm,Mail
        00,1362850800,com.android.launcher,Home
        00,1362852000,com.google.android.gm,Mail
        00,1362853200,com.google.android.apps.paco,Survey
        00,1362854400,com.android.systemui,Recents
        00,1362898800,com.android.chrome,Browser
        01,1362848400,com.android.chrome,Browser

        """

    private let gps = """
        user,timestamp,provider,network_type,accuracy,latitude,longitude,altitude,bearing,speed,travelstate
        00,1362898799,network,wifi,24.0,43.7591346,-72.3292405,0.0,0.0,0.0,stationary
        00,1362898800,gps,,,43.759503,-72.32901795,250.9,0.0,0.0,
        01,1362848000,gps,,10,95.0,-72.3,0.0,0.0,0.0,

        """

    @Test func foregroundChangesBecomeLaunchesAndSystemAppsAreExcluded() throws {
        let dir = ImportFixtureDirectory()
        let fg = dir.write("fg.csv", foreground)
        var options = ImportOptions()
        options.stackRule = .none
        let result = try StudentLifeImporter(options: options).importFiles([fg])
        let u00 = result.events.filter { $0.user == "u00" }
        // gm, (gm again: same use), launcher (excluded), gm (a new launch after home), survey, system UI, chrome.
        #expect(u00.compactMap(\.launchedApp) == ["com.google.android.gm", "com.google.android.gm", "com.android.chrome"])
        #expect(result.events.filter { $0.user == "u01" }.compactMap(\.launchedApp) == ["com.android.chrome"])
        #expect(result.report.skipped["same foreground app as the previous snapshot (not a new launch)"] == 1)
        #expect(result.report.skipped["excluded app (survey app, launcher, system UI or --exclude-app)"] == 3)
        #expect(result.report.rowsRead == 8)
        #expect(result.report.rowsRead == result.report.rowsSkipped + result.report.eventsWritten)
    }

    @Test func keepSystemAppsKeepsThem() throws {
        let dir = ImportFixtureDirectory()
        var options = ImportOptions()
        options.stackRule = .none
        options.keepSystemApps = true
        let result = try StudentLifeImporter(options: options).importFiles([dir.write("fg.csv", foreground)])
        #expect(result.events.filter { $0.user == "u00" }.compactMap(\.launchedApp) == [
            "com.google.android.gm", "com.android.launcher", "com.google.android.gm", "com.google.android.apps.paco",
            "com.android.systemui", "com.android.chrome",
        ])
    }

    @Test func offsetsFollowNewYorkDaylightSavingAcrossTheSpringBoundary() throws {
        let dir = ImportFixtureDirectory()
        var options = ImportOptions()
        options.stackRule = .none
        let result = try StudentLifeImporter(options: options).importFiles([dir.write("gps.csv", gps), dir.write("fg.csv", foreground)])
        let u00 = result.events.filter { $0.user == "u00" }
        #expect(u00.map(\.time.rfc3339) == [
            "2013-03-09T12:00:00-05:00", "2013-03-09T13:00:00-05:00", "2013-03-10T01:59:59-05:00",
            "2013-03-10T03:00:00-04:00", "2013-03-10T03:00:00-04:00",
        ])
        #expect(u00.map(\.type) == [.appLaunch, .appLaunch, .location, .location, .appLaunch])
        #expect(u00[2].payload == .location(lat: 43.7591346, lon: -72.3292405, accuracy: 24))
        #expect(u00[3].payload == .location(lat: 43.759503, lon: -72.32901795, accuracy: nil))
        #expect(result.report.skipped["GPS fix with coordinates out of range"] == 1)
        #expect(u00.map(\.id) == ["sl-u00-1", "sl-u00-2", "sl-u00-3", "sl-u00-4", "sl-u00-5"])
    }

    @Test func runningAppsSnapshotsUseTheirFirstRow() throws {
        let dir = ImportFixtureDirectory()
        let running = dir.write("running.csv", """
            user,timestamp,device,task_id,num_activities,num_running,base_package,base_class,top_package,top_class
            00,1364095883,d,249,1,1,org.bewellapp,A,org.bewellapp,A
            00,1364095883,d,2,1,1,com.android.launcher,L,com.android.launcher,L
            00,1364097083,d,2,1,1,com.android.launcher,L,com.android.launcher,L
            00,1364097083,d,249,1,1,org.bewellapp,A,org.bewellapp,A
            00,1364098283,d,250,1,1,com.whatsapp,W,com.whatsapp,W

            """)
        var options = ImportOptions()
        options.stackRule = .none
        let result = try StudentLifeImporter(options: options).importFiles([running])
        #expect(result.events.compactMap(\.launchedApp) == ["org.bewellapp", "com.whatsapp"])
        #expect(result.report.skipped["background task of a running-apps snapshot (only its first row is the foreground app)"] == 2)
        #expect(result.report.rowsRead == 5)
    }

    @Test func reimportGivesIdenticalEventsAndIDs() throws {
        let dir = ImportFixtureDirectory()
        let paths = [dir.write("fg.csv", foreground), dir.write("gps.csv", gps)]
        let a = try StudentLifeImporter().importFiles(paths)
        let b = try StudentLifeImporter().importFiles(paths.reversed())
        #expect(a.events == b.events)
        try expectOrderedAndUniquelyIdentified(a.events)
    }

    @Test func bothSnapshotFilesAreRejected() {
        let dir = ImportFixtureDirectory()
        let fg = dir.write("fg.csv", foreground)
        let running = dir.write("running.csv", "user,timestamp,task_id,top_package\n00,1,2,x\n")
        let error = importError { () throws(ImportError) in try StudentLifeImporter().importFiles([fg, running]) }
        #expect(error?.file == running)
        #expect(error?.message.contains("hold the same snapshots") == true)
    }

    @Test func unrecognisedFileListsTheExpectedColumns() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("x.csv", "when,what\n1,2\n")
        let error = importError { () throws(ImportError) in try StudentLifeImporter().importFiles([path]) }
        #expect(error?.message.contains("found columns: when, what") == true)
        #expect(error?.message.contains("latitude") == true)
    }

    @Test func badNumberStopsTheImportWithItsLocationUnlessSkipping() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("gps.csv", "user,timestamp,accuracy,latitude,longitude\n00,1362898799,5,43.7,-72.3\n00,1362898800,5,north,-72.3\n")
        let error = importError { () throws(ImportError) in try StudentLifeImporter().importFiles([path]) }
        #expect(error?.description == "\(path):3: column 'latitude': not a number: 'north'")
        var options = ImportOptions()
        options.skipInvalidRows = true
        let result = try StudentLifeImporter(options: options).importFiles([path])
        #expect(result.events.count == 1)
        #expect(result.report.skipped["invalid value in column 'latitude'"] == 1)
    }

    @Test func truncatedGzipInputNamesTheFile() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("running.csv.gz", bytes: Array(gzipScreenFixture.prefix(20)))
        let error = importError { () throws(ImportError) in try StudentLifeImporter().importFiles([path]) }
        #expect(error?.file == path)
        #expect(error?.message.contains("truncated") == true)
    }

    @Test func usersGetTheStandardStackAfterTheirFirstWeek() throws {
        let dir = ImportFixtureDirectory()
        var rows = "user,timestamp,top_package\n"
        let t0 = 1_364_095_883
        let apps = ["com.a.mail", "com.b.maps", "com.a.mail", "com.c.chat"]
        for i in 0..<40 { rows += "00,\(t0 + i * 6 * 3600),\(apps[i % 4])\n" }  // 10 days
        let result = try StudentLifeImporter().importFiles([dir.write("fg.csv", rows)])
        let config = try #require(result.events.first { $0.type == .stackConfig })
        #expect(config.time.nanosecondsSinceEpoch == Int64(t0 + 7 * 86_400) * 1_000_000_000)
        #expect(config.configuredWidgets?.map(\.app) == ["com.a.mail", "com.b.maps", "com.c.chat"])
        #expect(config.time.utcOffsetSeconds == -14_400)
    }
}
