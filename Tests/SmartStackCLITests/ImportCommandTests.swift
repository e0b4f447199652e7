import Foundation
import SmartStack
import SmartStackCLI
import SmartStackDatasets
import Testing

@Suite struct ImportCommandParsingTests {
    private func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try ImportCommand(arguments: arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func unknownFormatListsTheFormats() {
        #expect(usageError(["gpx", "a.gpx"]) == "unknown format 'gpx' (formats: studentlife, aware-screen, obd, lsapp, csv, usage-history)")
        #expect(usageError([]) == "missing format (one of: studentlife, aware-screen, obd, lsapp, csv, usage-history)")
        #expect(usageError(["obd"]) == "missing input file(s) after the format 'obd'")
    }

    @Test func optionsOfAnotherFormatAreRejected() {
        #expect(usageError(["obd", "x.csv", "--keep-system-apps"]) == "'--keep-system-apps' applies to format 'studentlife' only, not 'obd'")
        #expect(usageError(["studentlife", "x.csv", "--policy", "p"]) == "'--policy' applies to format 'obd' only, not 'studentlife'")
        #expect(usageError(["studentlife", "x.csv", "--user", "me"]) != nil)
        #expect(usageError(["obd", "x.csv", "--stack-size", "3"])?.hasPrefix("'--stack-size' does not apply to obd") == true)
        #expect(usageError(["aware-screen", "x.csv", "--exclude-app", "a"]) == "'--exclude-app' does not apply to 'aware-screen' (it has no apps)")
    }

    @Test func badValuesAreUsageErrors() {
        #expect(usageError(["aware-screen", "x", "--utc-offset", "5"])?.contains("invalid UTC offset '5'") == true)
        #expect(usageError(["aware-screen", "x", "--utc-offset", "+1", "--timezone", "UTC"]) != nil)
        #expect(usageError(["lsapp", "x", "--stack-size", "-1"]) == "'--stack-size' must be an integer >= 0, got '-1'")
        #expect(usageError(["lsapp", "x", "--stack-days", "0"]) == "'--stack-days' must be a number > 0, got '0'")
        #expect(usageError(["lsapp", "x", "--widgets", "a,b", "--stack-size", "3"]) != nil)
        #expect(usageError(["lsapp", "x", "--widgets", "a,a"]) == "'--widgets' lists an app twice")
        #expect(usageError(["csv", "x"]) == "format 'csv' needs '--time-column'")
        #expect(usageError(["csv", "x", "--time-column", "t"]) == "format 'csv' needs '--app-column', or '--lat-column' and '--lon-column'")
        #expect(usageError(["csv", "x", "--time-column", "t", "--lat-column", "a"]) == "'--lat-column' and '--lon-column' go together")
        #expect(usageError(["csv", "x", "--time-column", "t", "--app-column", "a", "--time-format", "iso"])?
            .hasPrefix("unknown time format 'iso'") == true)
        #expect(usageError(["obd", "x", "--item-count", "zero"]) != nil)
    }

    @Test func optionsReachTheImporter() throws {
        let c = try ImportCommand(arguments: [
            "csv", "a.csv", "b.csv", "--out", "o.jsonl", "--time-column", "t", "--app-column", "app",
            "--delimiter", "tab", "--time-format", "rfc3339", "--timezone", "America/New_York", "--stack-size", "4",
            "--stack-days=3", "--exclude-app", "x,y", "--exclude-app", "z", "--skip-invalid",
        ])
        #expect(c.format == .csv)
        #expect(c.paths == ["a.csv", "b.csv"])
        #expect(c.outputPath == "o.jsonl")
        #expect(c.options.columns.delimiter == UInt8(ascii: "\t"))
        #expect(c.options.columns.timeFormat == .rfc3339)
        #expect(c.options.timeRule == .newYork)
        #expect(c.options.stackRule == .mostUsed(count: 4, warmUpDays: 3))
        #expect(c.options.excludedApps == ["x", "y", "z"])
        #expect(c.options.skipInvalidRows)
        #expect(try ImportCommand(arguments: ["studentlife", "a", "--stack-size", "0"]).options.stackRule == ImportStackRule.none)
        #expect(try ImportCommand(arguments: ["studentlife", "a", "--widgets", "com.a, com.b"]).options.stackRule
            == .fixed(apps: ["com.a", "com.b"]))
    }

    @Test func helpHasTheStandardSections() {
        for section in ["OVERVIEW:", "USAGE:", "OPTIONS:", "FORMATS:"] {
            #expect(ImportCommand.help.contains(section))
        }
        #expect(ImportCommand.name == "import")
    }
}

@Suite struct ImportCommandRunTests {
    private final class Captured {
        var out = ""
        var err = ""
    }

    private func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let captured = Captured()
        let output = CommandOutput(standardOutput: { captured.out += $0 }, standardError: { captured.err += $0 })
        let code = try ImportCommand(arguments: arguments).run(output)
        return (code, captured.out, captured.err)
    }

    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-import-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writesJSONLAndASummaryOnStderr() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/screen.csv"
        try "time,screen_status\n100,1\n200,0\n300,3\n".write(toFile: input, atomically: true, encoding: .utf8)
        let out = dir + "/out.jsonl"
        let (code, stdout, stderr) = try run(["aware-screen", input, "--out", out, "--user", "p1", "--utc-offset", "-05:00"])
        #expect(code == 0)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("3 rows read, 2 events written, 1 rows skipped"))
        #expect(stderr.contains("skipped 1: screen off (status 0)"))
        var reader = try JSONLReader(path: out)
        var events: [Event] = []
        while let e = try reader.next() { events.append(e) }
        #expect(events.map(\.id) == ["aw-p1-1", "aw-p1-2"])
        #expect(events.map(\.time.rfc3339) == ["1969-12-31T19:01:40-05:00", "1969-12-31T19:05:00-05:00"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["out.jsonl", "screen.csv"])
    }

    @Test func writesToStdoutWithoutOut() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/screen.csv"
        try "time,screen_status\n100,1\n".write(toFile: input, atomically: true, encoding: .utf8)
        let (_, stdout, _) = try run(["aware-screen", input])
        #expect(stdout == "{\"time\":\"1970-01-01T00:01:40Z\",\"type\":\"screen_on\",\"user\":\"default\",\"id\":\"aw-default-1\"}\n")
    }

    @Test func failedImportLeavesTheOutputUntouched() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out.jsonl"
        try "previous\n".write(toFile: out, atomically: true, encoding: .utf8)
        let good = dir + "/fg.csv"
        try "user,timestamp,top_package\n00,1364095883,com.a\n".write(toFile: good, atomically: true, encoding: .utf8)
        let truncated = dir + "/gps.csv.gz"
        _ = FileManager.default.createFile(atPath: truncated, contents: Data([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2b, 0xc9]))
        #expect {
            _ = try run(["studentlife", good, truncated, "--out", out])
        } throws: { error in
            (error as? CommandFailure)?.message.hasPrefix("\(truncated): truncated gzip file") == true
        }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "previous\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["fg.csv", "gps.csv.gz", "out.jsonl"])
    }

    @Test func missingInputIsAFailureNamingIt() throws {
        #expect {
            _ = try run(["obd", "/nonexistent/random_all.csv.gz"])
        } throws: { error in
            (error as? CommandFailure)?.message == "/nonexistent/random_all.csv.gz: no such file"
        }
    }
}
