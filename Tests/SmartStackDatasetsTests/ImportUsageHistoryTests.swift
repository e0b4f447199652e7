import Foundation
import SmartStack
import SmartStackDatasets
import Testing

/// `smartstack import usage-history`: a phone's app launches from before the stack, as Android's
/// usage events or an iOS host's log export them.
@Suite struct ImportUsageHistoryTests {
    /// A morning of Android usage events (2026-01-05, the phone at -05:00), out of order at the end.
    static let csv = """
        timestamp,utc_offset,package,class,event_type
        1767614400000,-05:00,com.google.android.calendar,.Main,1
        1767614405000,-05:00,com.google.android.calendar,.Event,ACTIVITY_PAUSED
        1767614405500,-05:00,com.google.android.calendar,.Event,ACTIVITY_RESUMED
        1767614460000,-05:00,com.whatsapp,.Home,MOVE_TO_FOREGROUND
        1767614460000,-05:00,com.whatsapp,.Home,1
        1767614520000,-05:00,,,16
        1767614580000,-05:00,com.whatsapp,.Home,1
        1767618000000,-05:00,com.google.android.apps.maps,.Maps,1
        1767614700000,-05:00,org.weather,.W,1

        """

    static func importer(_ configure: (inout ImportOptions) -> Void = { _ in }) -> UsageHistoryImporter {
        var options = ImportOptions()
        options.user = "me"
        configure(&options)
        return UsageHistoryImporter(options: options)
    }

    @Test func androidUsageEventsBecomeLaunchesInTimeOrderWithStableIds() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("usage.csv", Self.csv)
        let result = try Self.importer { $0.appMap = ["com.google.android.calendar": "calendar"] }.importFiles([path])
        #expect(result.events.map(\.launchedApp) == ["calendar", "com.whatsapp", "com.whatsapp", "org.weather", "com.google.android.apps.maps"])
        #expect(result.events.map(\.id) == ["usage-1767614400000-com.google.android.calendar", "usage-1767614460000-com.whatsapp",
                                            "usage-1767614580000-com.whatsapp", "usage-1767614700000-org.weather",
                                            "usage-1767618000000-com.google.android.apps.maps"])
        #expect(result.events.allSatisfy { $0.user == "me" && $0.time.utcOffsetSeconds == -18_000 })
        #expect(result.events[0].time.rfc3339 == "2026-01-05T07:00:00-05:00")
        let r = result.report
        #expect(r.rowsRead == 9)
        #expect(r.skipped["event type ACTIVITY_PAUSED (not an app coming to the foreground)"] == 1)
        #expect(r.skipped["repeated resume of the app resumed last (no other app or end of use between)"] == 1)
        #expect(r.skipped["duplicate row (same user, millisecond and package)"] == 1)
        #expect(r.skipped["end of use (screen off, keyguard, shutdown: separates launches)"] == 1)
        #expect(r.notes.contains("1 row(s) of user 'me' came before an earlier one: put in time order"))
        #expect(result.origins["me\u{0}usage-1767614700000-org.weather"] == path + ":10")
        // Imported again: the same events, byte for byte.
        #expect(try Self.importer { $0.appMap = ["com.google.android.calendar": "calendar"] }.importFiles([path]).events == result.events)
        // Only the mapped packages, and an excluded one.
        let mapped = try Self.importer {
            $0.appMap = ["com.google.android.calendar": "calendar", "org.weather": "weather"]
            $0.onlyMapped = true
            $0.excludedApps = ["weather"]
        }.importFiles([path])
        #expect(mapped.events.map(\.launchedApp) == ["calendar"])
        #expect(mapped.report.skipped["package not in the map (--only-mapped)"] == 3)
        #expect(mapped.report.skipped["excluded app (--exclude-app)"] == 1)
    }

    @Test func jsonlGivesTheSameLaunchesAsCSV() throws {
        let dir = ImportFixtureDirectory()
        var lines: [String] = []
        for row in Self.csv.split(separator: "\n").dropFirst() {
            let f = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let type = Int(f[4]).map(String.init) ?? "\"\(f[4])\""
            lines.append(#"{"timestamp":\#(f[0]),"utc_offset":"\#(f[1])","package":"\#(f[2])","class":null,"event_type":\#(type)}"#)
        }
        let jsonl = dir.write("usage.jsonl", lines.joined(separator: "\n") + "\n")
        let csv = dir.write("usage.csv", Self.csv)
        let a = try Self.importer().importFiles([csv]), b = try Self.importer().importFiles([jsonl])
        #expect(a.events == b.events)
        #expect(a.report.skipped == b.report.skipped)
    }

    /// An iOS host's own log: local times with their offset, or without one and the phone's zone.
    @Test func timesTakeTheirOwnOffsetOrThePhonesZoneButNeverAGuess() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("opens.csv", "time,app\n2026-01-05T08:00:00+01:00,mail\n2026-07-06 08:00:00,mail.other\n")
        do {
            _ = try Self.importer().importFiles([path])
            Issue.record("a local time without a zone was read")
        } catch {
            #expect(error.description.hasPrefix("\(path):3: column 'time': the time has no UTC offset"))
        }
        let berlin = try Self.importer { $0.timeRule = try! LocalTimeRule(timeZone: "Europe/Berlin") }.importFiles([path])
        #expect(berlin.events.map(\.time.rfc3339) == ["2026-01-05T08:00:00+01:00", "2026-07-06T08:00:00+02:00"])
        let disagree = dir.write("d.csv", "time,utc_offset,package\n2026-01-05T08:00:00+01:00,-05:00,mail\n")
        #expect(throws: ImportError.self) { try Self.importer().importFiles([disagree]) }
        let both = dir.write("b.csv", "time,timestamp,package\n2026-01-05T08:00:00+01:00,1,mail\n")
        #expect(throws: ImportError.self) { try Self.importer().importFiles([both]) }
    }

    @Test func badRowsAreNamedOrCountedWithSkipInvalid() throws {
        let dir = ImportFixtureDirectory()
        let path = dir.write("bad.csv", "timestamp,utc_offset,package,event_type\n1767614400000,-05:00,a,1\nsoon,-05:00,b,1\n1767614400001,+25:00,c,1\n1767614400002,-05:00,d,RESUMED\n1767614400003,-05:00,,1\n")
        var messages: [String] = []
        do { _ = try Self.importer().importFiles([path]) } catch { messages.append(error.description) }
        #expect(messages == ["\(path):3: column 'timestamp': not a Unix time in milliseconds: 'soon'"])
        let skipped = try Self.importer { $0.skipInvalidRows = true }.importFiles([path])
        #expect(skipped.events.map(\.launchedApp) == ["a"])
        #expect(skipped.report.skipped["invalid value in column 'timestamp'"] == 1)
        #expect(skipped.report.skipped["invalid value in column 'utc_offset'"] == 1)
        #expect(skipped.report.skipped["invalid value in column 'event_type'"] == 1)
        #expect(skipped.report.skipped["invalid value in column 'package'"] == 1)
        let noPackage = dir.write("np.csv", "timestamp,name\n1,a\n")
        #expect(throws: ImportError.self) { try Self.importer().importFiles([noPackage]) }
        let jsonl = dir.write("bad.jsonl", "{\"timestamp\":1767614400000,\"utc_offset\":\"-05:00\",\"package\":\"a\"}\n{\"timestamp\":[1]}\n")
        do { _ = try Self.importer().importFiles([jsonl]); Issue.record("read an array") } catch {
            #expect(error.description == "\(jsonl):2: column 'timestamp': expected a string, a number or null")
        }
    }

    @Test func aPackageMapIsReadFromCSVAndMistakesAreNamed() throws {
        let dir = ImportFixtureDirectory()
        let good = dir.write("map.csv", "package,app,note\ncom.google.android.calendar,calendar,x\ncom.whatsapp,chat,\n")
        #expect(try UsageHistoryImporter.map(path: good) == ["com.google.android.calendar": "calendar", "com.whatsapp": "chat"])
        let twice = dir.write("twice.csv", "package,app\na,x\nb,y\na,z\n")
        do { _ = try UsageHistoryImporter.map(path: twice); Issue.record("read a package mapped twice") } catch {
            #expect(error.description == "\(twice):4: column 'package': package 'a' is mapped twice")
        }
    }
}
