import SmartStack
@testable import SmartStackCLI
import Testing

extension CLITests {
    /// Each subcommand's `init(arguments:)` as a pure function.
    @Suite struct Parsing {
        /// The message of the `UsageError` thrown by `body`, or `nil` if it did not throw one.
        func usageMessage(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch let error as UsageError {
                return error.message
            } catch {
                return "not a UsageError: \(error)"
            }
        }

        @Test func ingestTakesFileDatabaseAndFlag() throws {
            let plain = try IngestCommand(arguments: ["events.jsonl", "--db", "e.db"])
            #expect(plain == IngestCommand(input: "events.jsonl", database: "e.db", skipInvalid: false))
            let skipping = try IngestCommand(arguments: ["--skip-invalid", "--db=e.db", "-"])
            #expect(skipping == IngestCommand(input: "-", database: "e.db", skipInvalid: true))
        }

        @Test(arguments: [
            (["events.jsonl"], "missing required option '--db'"),
            (["--db", "e.db"], "missing argument <file>"),
            (["a.jsonl", "b.jsonl", "--db", "e.db"], "unexpected argument 'b.jsonl'"),
            (["a.jsonl", "--db", "e.db", "--verbose"], "unknown option '--verbose'"),
            (["a.jsonl", "--db"], "missing value for '--db'"),
            (["a.jsonl", "--db", ""], "the value of '--db' is empty"),
            (["a.jsonl", "--db", "e.db", "--skip-invalid=yes"], "'--skip-invalid' takes no value"),
        ])
        func ingestRejects(arguments: [String], expected: String) {
            let message = usageMessage { _ = try IngestCommand(arguments: arguments) }
            #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
        }

        @Test func exportBuildsTheQuery() throws {
            let export = try ExportCommand(arguments: [
                "--db", "e.db", "--user", "u07", "--from", "2013-03-27T08:05:00-04:00",
                "--to=2013-03-28T00:00:00Z", "--type", "app_launch,widget_tap", "--type", "place",
            ])
            #expect(export.database == "e.db")
            #expect(export.query.user == "u07")
            #expect(export.query.from == (try EventTime(rfc3339: "2013-03-27T08:05:00-04:00")))
            #expect(export.query.to == (try EventTime(rfc3339: "2013-03-28T00:00:00Z")))
            #expect(export.query.types == [.appLaunch, .widgetTap, .place])
        }

        @Test func exportWithoutFiltersQueriesEverything() throws {
            let export = try ExportCommand(arguments: ["--db", "e.db"])
            #expect(export.query == EventQuery())
        }

        @Test(arguments: [
            ([String](), "missing required option '--db'"),
            (["--db", "e.db", "extra"], "unexpected argument 'extra'"),
            (["--db", "e.db", "--format", "csv"], "unknown option '--format'"),
            (["--db", "e.db", "--from", "2013-03-27T08:05:00"], "invalid value '2013-03-27T08:05:00' for '--from'"),
            (["--db", "e.db", "--to", "2013-02-30T00:00:00Z"], "invalid value '2013-02-30T00:00:00Z' for '--to'"),
            (["--db", "e.db", "--from", "yesterday"], "invalid value 'yesterday' for '--from'"),
            (["--db", "e.db", "--from", "2013-03-28T00:00:00Z", "--to", "2013-03-27T00:00:00Z"], "'--to'"),
            (["--db", "e.db", "--type", "app_launch,tap"], "unknown event type 'tap' for '--type'"),
            (["--db", "e.db", "--type", "app_launch,"], "an empty type name for '--type'"),
            (["--db", "e.db", "--user", ""], "the value of '--user' is empty"),
        ])
        func exportRejects(arguments: [String], expected: String) {
            let message = usageMessage { _ = try ExportCommand(arguments: arguments) }
            #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
        }

        @Test func unknownTypeErrorListsEveryValidType() {
            let message = usageMessage { _ = try ExportCommand(arguments: ["--db", "e.db", "--type", "tap"]) } ?? ""
            for type in EventType.allCases {
                #expect(message.contains(type.rawValue), "\(type.rawValue) missing from: \(message)")
            }
        }

        @Test func statsTakesDatabaseAndJSONFlag() throws {
            #expect(try StatsCommand(arguments: ["--db", "e.db"]) == StatsCommand(database: "e.db", isJSON: false))
            #expect(try StatsCommand(arguments: ["--json", "--db", "e.db"]) == StatsCommand(database: "e.db", isJSON: true))
        }

        @Test(arguments: [
            ([String](), "missing required option '--db'"),
            (["--db", "e.db", "e2.db"], "unexpected argument 'e2.db'"),
            (["--db", "e.db", "--csv"], "unknown option '--csv'"),
        ])
        func statsRejects(arguments: [String], expected: String) {
            let message = usageMessage { _ = try StatsCommand(arguments: arguments) }
            #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
        }

        @Test func doubleDashEndsOptions() throws {
            let ingest = try IngestCommand(arguments: ["--db", "e.db", "--", "--odd-name.jsonl"])
            #expect(ingest.input == "--odd-name.jsonl")
        }

        @Test func countsAreGroupedByThousands() {
            #expect(formatCount(0) == "0")
            #expect(formatCount(999) == "999")
            #expect(formatCount(1000) == "1,000")
            #expect(formatCount(12_345) == "12,345")
            #expect(formatCount(1_234_567) == "1,234,567")
            #expect(formatCount(-4321) == "-4,321")
            #expect(counted(1, "event") == "1 event")
            #expect(counted(2, "event") == "2 events")
        }
    }
}
