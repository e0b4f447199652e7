import SmartStack
import SmartStackDatasets
import Testing

@Suite struct ImportAwareScreenTests {
    @Test func onAndUnlockOfOneLookBecomeOneScreenOn() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("screen.csv", """
            time,screen_status
            1000.5,1
            1005,3
            1100,0
            1101,2
            1200,1
            1300,3
            1400,0
            1500,3
            1501,7

            """)
        let result = try AwareScreenImporter().importFiles([path])
        // 1000.5 on (+1005 unlock merged), 1200 on, 1300 unlock (100 s later: a second look),
        // 1500 unlock after an off.
        #expect(result.events.map(\.time.nanosecondsSinceEpoch) == [1_000_500_000_000, 1_200_000_000_000, 1_300_000_000_000, 1_500_000_000_000])
        #expect(result.events.allSatisfy { $0.type == .screenOn && $0.user == "default" })
        #expect(result.report.skipped["unknown screen_status 7"] == 1)
        #expect(result.report.rowsRead == 9)
        #expect(result.report.rowsSkipped + result.report.eventsWritten == 9)
        #expect(result.events.map(\.id) == ["aw-default-1", "aw-default-2", "aw-default-3", "aw-default-4"])
    }

    @Test func offsetAndUserOptionsAndGzipInput() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("screen.csv.gz", bytes: gzipScreenFixture)
        var options = ImportOptions()
        options.user = "p1"
        options.timeRule = try LocalTimeRule(utcOffset: "+02:00")
        let result = try AwareScreenImporter(options: options).importFiles([path])
        #expect(result.events.map(\.time.rfc3339) == ["1970-01-01T02:01:40+02:00"])
        #expect(result.events.map(\.user) == ["p1"])
    }

    @Test func millisecondTimestampsAndDeviceColumn() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("screen.csv", "timestamp,device_id,screen_status\n1000000,dev-b,1\n2000000,dev-a,3\n")
        let result = try AwareScreenImporter().importFiles([path])
        #expect(result.events.map(\.user) == ["dev-a", "dev-b"])
        #expect(result.events.map(\.time.secondsSinceEpoch) == [2000, 1000])
    }

    @Test func wrongColumnsAreNamed() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("screen.csv", "time,status\n1,1\n")
        let error = importError { () throws(ImportError) in try AwareScreenImporter().importFiles([path]) }
        #expect(error?.description == "\(path):1: missing column 'screen_status'; found columns: time, status")
    }
}

@Suite struct ImportOBDTests {
    private func log(affinityColumns: Int = 3) -> String {
        let affinity = (0..<affinityColumns).map { "user-item_affinity_\($0)" }.joined(separator: ",")
        let zeros = Array(repeating: "0.0", count: affinityColumns).joined(separator: ",")
        return """
            ,timestamp,item_id,position,click,propensity_score,user_feature_0,\(affinity)
            0,2019-11-24 00:00:34.762830+00:00,2,3,0,0.5,abc,\(zeros)
            1,2019-11-24 00:00:35.000000+00:00,1,1,1,0.25,abc,\(zeros)
            2,2019-11-24 00:00:36.000000+00:00,0,3,0,0.125,abc,\(zeros)

            """
    }

    @Test func roundsBecomeImpressionsTapsAndConfigsFirst() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("random_all.csv", log())
        let result = try OBDImporter().importFiles([path])
        let catalogue = (0..<3).map { WidgetConfig(id: "item-\($0)") }
        #expect(result.events.map(\.payload) == [
            .stackConfig(stack: "position-3", widgets: catalogue),
            .widgetImpression(stack: "position-3", widget: "item-2", propensity: 0.5, policy: "random"),
            .stackConfig(stack: "position-1", widgets: catalogue),
            .widgetImpression(stack: "position-1", widget: "item-1", propensity: 0.25, policy: "random"),
            .widgetTap(widget: "item-1", stack: "position-1"),
            .widgetImpression(stack: "position-3", widget: "item-0", propensity: 0.125, policy: "random"),
        ])
        #expect(result.events.allSatisfy { $0.user == "random" })
        #expect(result.events[0].time.rfc3339 == "2019-11-24T00:00:34.76283Z")
        #expect(result.events.first?.id == "obd-random-1")
    }

    @Test func catalogueFromItemContextOrItemCount() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("bts_all.csv", log())
        let context = dir.write("bts_item_context.csv", ",item_id,item_feature_0\n0,0,0.1\n1,1,0.2\n2,2,0.3\n3,3,0.4\n")
        let withContext = try OBDImporter().importFiles([context, path])
        #expect(withContext.events.first?.configuredWidgets?.count == 4)
        var options = ImportOptions()
        options.itemCount = 5
        options.policy = "thompson"
        options.user = "zozo"
        let withCount = try OBDImporter(options: options).importFiles([path])
        #expect(withCount.events.first?.configuredWidgets?.count == 5)
        #expect(withCount.events.allSatisfy { $0.user == "zozo" })
        #expect(withCount.events.contains { $0.payload == .widgetImpression(stack: "position-1", widget: "item-1", propensity: 0.25, policy: "thompson") })
        options.timeRule = try LocalTimeRule(timeZone: "+09:00")
        let tokyo = try OBDImporter(options: options).importFiles([path])
        #expect(tokyo.events.first?.time.rfc3339 == "2019-11-24T09:00:34.76283+09:00")
        options.itemCount = 2
        let small = try OBDImporter(options: options).importFiles([path])
        #expect(small.report.skipped["item not in the catalogue"] == 1)
    }

    @Test func unknownCatalogueIsAnError() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("x_all.csv", log(affinityColumns: 0).replacingOccurrences(of: ",user_feature_0,", with: ",user_feature_0")
            .replacingOccurrences(of: ",abc,", with: ",abc"))
        let error = importError { () throws(ImportError) in try OBDImporter().importFiles([path]) }
        #expect(error?.message.contains("item_context") == true)
    }

    @Test func badClickAndPropensity() throws {
        let dir = ImportFixtureDirectory()
        let bad = dir.write("p_all.csv", "timestamp,item_id,position,click,propensity_score\n2019-11-24T00:00:00Z,0,1,2,0.5\n")
        var options = ImportOptions()
        options.itemCount = 3
        let error = importError { () throws(ImportError) in try OBDImporter(options: options).importFiles([bad]) }
        #expect(error?.description == "\(bad):2: column 'click': expected 0 or 1, found 2")
        let zero = dir.write("q_all.csv", "timestamp,item_id,position,click,propensity_score\n2019-11-24T00:00:00Z,0,1,0,0\n")
        let result = try OBDImporter(options: options).importFiles([zero])
        #expect(result.report.skipped["propensity_score outside (0, 1]"] == 1)
        #expect(result.events.isEmpty)
    }

    @Test func policyNameFromFileName() {
        #expect(OBDImporter.policyName(fromPath: "/data/obd/bts_all.csv.gz") == "bts")
        #expect(OBDImporter.policyName(fromPath: "random.csv") == "random")
    }
}

@Suite struct ImportLSAppTests {
    private let tsv = """
        user_id\tsession_id\ttimestamp\tapp_name\tevent_type
        1\t10\t2018-01-16 06:01:05\tGoogle Chrome\tOpened
        1\t10\t2018-01-16 06:01:05\tGoogle Chrome\tOpened
        1\t10\t2018-01-16 06:03:00\tGoogle Chrome\tClosed
        1\t10\t2018-01-16 06:04:00\tFacebook\tOpened
        0\t11\t2018-03-11 02:30:00\tGmail\tOpened

        """

    @Test func openedEventsBecomeLaunches() throws {
        let dir = ImportFixtureDirectory()
        var options = ImportOptions()
        options.stackRule = .fixed(apps: ["Google Chrome", "Gmail"])
        let result = try LSAppImporter(options: options).importFiles([dir.write("lsapp.tsv", tsv)])
        #expect(result.events.map(\.user) == ["0", "0", "1", "1", "1"])
        #expect(result.events.compactMap(\.launchedApp) == ["Gmail", "Google Chrome", "Facebook"])
        #expect(result.events[2].configuredWidgets?.map(\.id) == ["google-chrome", "gmail"])
        #expect(result.report.skipped["event_type 'Closed' (only 'Opened' is an app launch)"] == 1)
        #expect(result.report.skipped["duplicate of the previous row"] == 1)
        #expect(result.events[1].time.rfc3339 == "2018-03-11T02:30:00Z")
        #expect(result.report.notes.contains { $0.contains("UTC") })
    }

    @Test func localTimesReadInTheGivenZone() throws {
        let dir = ImportFixtureDirectory()
        var options = ImportOptions()
        options.timeRule = .newYork
        options.stackRule = .none
        let result = try LSAppImporter(options: options).importFiles([dir.write("lsapp.tsv", tsv)])
        // 2018-03-11 02:30 does not exist in New York (spring forward).
        #expect(result.events.map(\.time.rfc3339) == [
            "2018-03-11T03:30:00-04:00", "2018-01-16T06:01:05-05:00", "2018-01-16T06:04:00-05:00",
        ])
    }

    @Test func badTimestampIsLocated() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("lsapp.tsv", "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n1\t1\t2018-13-01 00:00:00\tX\tOpened\n")
        let error = importError { () throws(ImportError) in try LSAppImporter().importFiles([path]) }
        #expect(error?.file == path)
        #expect(error?.line == 2)
        #expect(error?.column == "timestamp")
    }
}

@Suite struct ImportCSVLogTests {
    private func options(_ configure: (inout CSVColumnMapping) -> Void) -> ImportOptions {
        var options = ImportOptions()
        options.stackRule = .none
        configure(&options.columns)
        return options
    }

    @Test func mappedColumnsWithQuotingAndCRLF() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("log.csv", "\"when\",who,\"package, name\",lat,lon\r\n"
            + "2024-05-01T08:00:00+02:00,\"ann \"\"a\"\"\",com.x.mail,,\r\n"
            + "2024-05-01T09:00:00+02:00,bob,,48.85,2.35\r\n"
            + "2024-05-01T10:00:00+02:00,bob,\"com.y.maps\",48.86,2.36\r\n"
            + "2024-05-01T11:00:00+02:00,bob,,,\r\n")
        let result = try CSVLogImporter(options: options {
            $0.time = "when"; $0.user = "WHO"; $0.app = "package, name"; $0.latitude = "lat"; $0.longitude = "lon"
            $0.timeFormat = .rfc3339
        }).importFiles([path])
        #expect(result.events.map(\.user) == ["ann \"a\"", "bob", "bob", "bob"])
        #expect(result.events.map(\.payload) == [
            .appLaunch(app: "com.x.mail"),
            .location(lat: 48.85, lon: 2.35, accuracy: nil),
            .appLaunch(app: "com.y.maps"),
            .location(lat: 48.86, lon: 2.36, accuracy: nil),
        ])
        #expect(result.events[0].time.rfc3339 == "2024-05-01T08:00:00+02:00")
        #expect(result.report.skipped["row with neither app nor coordinates"] == 1)
    }

    @Test func unixMillisecondsWithDefaultUserAndOffset() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("log.csv", "ts;app\n1700000000000;a.b\n")
        var o = options { $0.time = "ts"; $0.app = "app"; $0.timeFormat = .unixMilliseconds; $0.delimiter = UInt8(ascii: ";") }
        o.timeRule = try LocalTimeRule(utcOffset: "+01:00")
        let result = try CSVLogImporter(options: o).importFiles([path])
        #expect(result.events.map(\.user) == ["default"])
        #expect(result.events.map(\.time.rfc3339) == ["2023-11-14T23:13:20+01:00"])
    }

    @Test func missingMappedColumnIsNamed() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("log.csv", "time,pkg\n1,a\n")
        let error = importError { () throws(ImportError) in
            try CSVLogImporter(options: options { $0.time = "time"; $0.app = "app" }).importFiles([path])
        }
        #expect(error?.description == "\(path):1: missing column 'app'; found columns: time, pkg")
    }

    @Test func badTimeIsLocated() {
        let dir = ImportFixtureDirectory()
        let path = dir.write("log.csv", "time,app\n1,a\nsoon,b\n")
        let error = importError { () throws(ImportError) in
            try CSVLogImporter(options: options { $0.time = "time"; $0.app = "app" }).importFiles([path])
        }
        #expect(error?.description == "\(path):3: column 'time': not a Unix time in seconds: 'soon'")
    }
}
