import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

extension CLITests {
    /// `ingest`, `export` and `stats` run in-process against temporary databases.
    @Suite struct Subcommands {
        @Test func ingestStoresEveryEventAndSaysHowMany() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("sample.jsonl", sampleJSONL)
            let db = dir.file("events.db")

            let run = runTool(["ingest", input, "--db", db])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput == "ingested 12 events (0 duplicates skipped) into \(db)\n")
            #expect(run.standardError.isEmpty)

            let stored = try EventStore(path: db).events(EventQuery())
            #expect(stored == inTimeOrder(try events(inJSONL: sampleJSONL)))
        }

        @Test func reingestingSkipsKnownIds() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("sample.jsonl", sampleJSONL)
            let db = dir.file("events.db")
            #expect(runTool(["ingest", input, "--db", db]).status == 0)

            let again = runTool(["ingest", input, "--db", db])
            #expect(again.status == 0)
            // Two lines carry ids (c1, e1); the ten without ids are new events each time.
            #expect(again.standardOutput == "ingested 10 events (2 duplicates skipped) into \(db)\n")
            #expect(try EventStore(path: db).statistics().events == 22)
        }

        @Test func invalidLineAbortsWithItsLocationAndStoresNothing() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            var lines = sampleJSONL.split(separator: "\n").map(String.init)
            lines[2] = #"{"time":"2013-03-27T12:07:30","type":"app_launch","app":"com.x"}"#
            let input = try dir.write("bad.jsonl", lines.joined(separator: "\n") + "\n")
            let db = dir.file("events.db")

            let run = runTool(["ingest", input, "--db", db])
            #expect(run.status == 1)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.hasPrefix("Error: \(input):3:"), "\(run.standardError)")
            #expect(run.standardError.contains("nothing was ingested"))
            #expect(!dir.exists("events.db"), "a failed ingest must not create the database")
        }

        @Test func failedIngestLeavesExistingDataUntouched() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("events.db")
            #expect(runTool(["ingest", try dir.write("good.jsonl", sampleJSONL), "--db", db]).status == 0)
            let before = runTool(["export", "--db", db]).standardOutput

            let bad = try dir.write("bad.jsonl", """
                {"time":"2014-01-01T00:00:00Z","type":"app_launch","app":"com.new"}
                {"time":"2014-01-01T00:00:01Z","type":"teleport"}

                """)
            let run = runTool(["ingest", bad, "--db", db])
            #expect(run.status == 1)
            #expect(run.standardError.hasPrefix("Error: \(bad):2:"), "\(run.standardError)")
            #expect(runTool(["export", "--db", db]).standardOutput == before)
        }

        @Test func skipInvalidStoresTheValidLinesAndReportsEachInvalidOne() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("mixed.jsonl", """
                {"time":"2013-03-27T08:05:00-04:00","type":"app_launch","app":"com.a"}
                {"time":"2013-03-27T08:06:00-04:00","type":"app_launch"}
                {"time":"2013-03-27T08:07:00-04:00","type":"screen_on"}
                not json at all
                {"time":"2013-03-27T08:08:00-04:00","type":"location","lat":91,"lon":0}
                {"time":"2013-03-27T08:09:00-04:00","type":"place","place":"home"}

                """)
            let db = dir.file("events.db")

            let run = runTool(["ingest", input, "--db", db, "--skip-invalid"])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput
                    == "ingested 3 events (0 duplicates skipped) into \(db), 3 invalid lines skipped\n")
            let reported = run.standardError.split(separator: "\n")
            #expect(reported.count == 3, "\(run.standardError)")
            #expect(reported.count == 3 && reported[0].hasPrefix("\(input):2:"))
            #expect(reported.count == 3 && reported[1].hasPrefix("\(input):4:"))
            #expect(reported.count == 3 && reported[2].hasPrefix("\(input):5:"))
            #expect(try EventStore(path: db).events(EventQuery()).map(\.type) == [.appLaunch, .screenOn, .place])
        }

        /// No events is a valid batch, as for smartstack_record (docs/contract.md, "Recording"):
        /// an empty or blank file ingests nothing and succeeds, and leaves the database as it is.
        @Test func anEmptyFileIngestsNoEvents() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            for (name, text) in [("empty.jsonl", ""), ("blank.jsonl", "\n  \n")] {
                let run = runTool(["ingest", try dir.write(name, text), "--db", dir.file("events.db")])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardOutput.hasPrefix("ingested 0 events (0 duplicates skipped): ") && run.standardOutput.contains(name))
                #expect(!dir.exists("events.db"))
            }
        }

        @Test func skipInvalidWithNoValidLineIsAFailure() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("junk.jsonl", "junk\n{\"type\":\"screen_on\"}\n")
            let run = runTool(["ingest", input, "--db", dir.file("events.db"), "--skip-invalid"])
            #expect(run.status == 1)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.contains("\(input):1:"))
            #expect(run.standardError.contains("\(input):2:"))
            #expect(run.standardError.hasSuffix("Error: no valid events in \(input): 2 invalid lines, nothing was ingested\n"))
            #expect(!dir.exists("events.db"))

            // A file without any line is no events, not lines all invalid.
            let empty = runTool(["ingest", try dir.write("empty.jsonl", ""), "--db", dir.file("events.db"), "--skip-invalid"])
            #expect(empty.status == 0 && empty.standardOutput.contains("holds no events"), "\(empty.standardError)")
            #expect(!dir.exists("events.db"))
        }

        @Test func missingInputFileIsAFailure() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let missing = dir.file("nope.jsonl")
            let run = runTool(["ingest", missing, "--db", dir.file("events.db")])
            #expect(run.status == 1)
            #expect(run.standardError == "Error: no such file: \(missing)\n")
            #expect(!dir.exists("events.db"))
        }

        @Test func aDatabaseAsInputIsNamedAndLeftIntact() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("events.db")
            #expect(runTool(["ingest", try dir.write("sample.jsonl", sampleJSONL), "--db", db]).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: db))
            // The same file as input and --db.
            let same = runTool(["ingest", db, "--db", db])
            #expect(same.status == 1)
            #expect(same.standardError == "Error: '\(db)' is the database given by --db: ingest reads JSONL events into it (give the .jsonl file as input)\n")
            // Another log as input.
            let other = dir.file("other.db")
            let copy = runTool(["ingest", db, "--db", other])
            #expect(copy.status == 1)
            #expect(copy.standardError == "Error: '\(db)' is an SQLite database, not JSONL events; to copy a log's events into another: smartstack export --db \(db) | smartstack ingest - --db \(other)\n")
            #expect(!dir.exists("other.db"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        }

        /// A log given where a dataset goes, and a dataset given to --db, are named for what they
        /// are, with the command that reads them, not refused on their first byte.
        @Test func aLogAsDatasetAndADatasetAsLogAreNamed() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("sample.jsonl", sampleJSONL)
            let db = dir.file("events.db")
            #expect(runTool(["ingest", input, "--db", db]).status == 0)
            for command in ["evaluate", "export-decisions"] {
                let run = runTool([command, db])
                #expect(run.status == 1)
                #expect(run.standardError == "Error: '\(db)' is an SQLite event log, not a JSONL dataset: give it as --db \(db)\n")
                let swapped = runTool([command, "--db", input])
                #expect(swapped.status == 1)
                #expect(swapped.standardError.hasPrefix("Error: '\(input)' given to --db holds JSONL events, not an SQLite event log"))
            }
            let prior = runTool(["prior", "learn", db, "-o", dir.file("prior.json")])
            #expect(prior.status == 1)
            #expect(prior.standardError == "Error: '\(db)' is an SQLite event log, not a JSONL dataset: export its events first "
                + "(smartstack export --db \(db) > events.jsonl)\n")
            #expect(!dir.exists("prior.json"))
        }

        @Test func directoryAsDatabaseIsAFailure() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("sample.jsonl", sampleJSONL)
            for arguments in [["ingest", input, "--db", dir.path], ["export", "--db", dir.path], ["stats", "--db", dir.path]] {
                let run = runTool(arguments)
                #expect(run.status == 1)
                #expect(run.standardError == "Error: '\(dir.path)' is a directory, not a database file\n")
            }
        }

        @Test func databaseInAMissingDirectoryIsAFailure() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let input = try dir.write("sample.jsonl", sampleJSONL)
            let run = runTool(["ingest", input, "--db", dir.file("no/such/dir/events.db")])
            #expect(run.status == 1)
            #expect(run.standardError.hasPrefix("Error: cannot create database "))
            #expect(run.standardError.contains("no directory"))
        }

        @Test(arguments: ["export", "stats"])
        func exportAndStatsNeverCreateADatabase(name: String) throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("missing.db")
            let run = runTool([name, "--db", db])
            #expect(run.status == 1)
            #expect(run.standardError == "Error: no database at \(db)\n")
            #expect(!dir.exists("missing.db"))
        }

        @Test(arguments: ["export", "stats"])
        func aFileThatIsNotADatabaseIsReportedAndLeftAlone(name: String) throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let text = String(repeating: "these are my notes, not a database\n", count: 200)
            let db = try dir.write("notes.txt", text)
            let run = runTool([name, "--db", db])
            #expect(run.status == 1)
            #expect(run.standardError.hasPrefix("Error: "))
            #expect(run.standardError.contains(db))
            #expect(try String(contentsOfFile: db, encoding: .utf8) == text)
        }

        @Test func exportWritesEveryEventInTimeOrder() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("events.db")
            #expect(runTool(["ingest", try dir.write("sample.jsonl", sampleJSONL), "--db", db]).status == 0)

            for bytesPath in [true, false] {
                let run = runTool(["export", "--db", db], bytesPath: bytesPath)
                #expect(run.status == 0)
                #expect(run.standardError.isEmpty)
                #expect(run.standardOutput.hasSuffix("\n"))
                #expect(try events(inJSONL: run.standardOutput) == inTimeOrder(try events(inJSONL: sampleJSONL)))
            }
        }

        @Test(arguments: [
            (["--user", "u01"], ["widget_impression", "location", "screen_on", "context"]),
            (["--type", "place,widget_pin"], ["place", "widget_pin"]),
            (["--type", "place", "--type", "stack_config"], ["stack_config", "place"]),
            (["--from", "2013-03-28T09:00:00+01:00", "--to", "2013-03-28T11:00:00+01:00"],
             ["location", "screen_on", "context", "relevance"]),
            (["--from", "2013-03-28T10:30:00Z"], ["widget_swipe", "widget_pin", "widget_unpin"]),
            (["--to", "2013-03-27T12:07:30.25Z"], ["stack_config", "app_launch"]),
            (["--user", "default", "--type", "place,relevance", "--from", "2013-03-28T09:30:00Z"], ["place"]),
            (["--user", "nobody"], []),
        ])
        func exportFilters(filters: [String], expectedTypes: [String]) throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("events.db")
            #expect(runTool(["ingest", try dir.write("sample.jsonl", sampleJSONL), "--db", db]).status == 0)

            let run = runTool(["export", "--db", db] + filters)
            #expect(run.status == 0, "\(run.standardError)")
            if expectedTypes.isEmpty {
                #expect(run.standardOutput.isEmpty)
            } else {
                #expect(try events(inJSONL: run.standardOutput).map(\.type.rawValue) == expectedTypes)
            }
        }

        @Test func exportIngestExportGivesIdenticalBytes() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let first = dir.file("first.db"), second = dir.file("second.db")
            #expect(runTool(["ingest", try dir.write("sample.jsonl", sampleJSONL), "--db", first]).status == 0)
            let exported = runTool(["export", "--db", first]).standardOutput
            #expect(!exported.isEmpty)

            let reingest = runTool(["ingest", try dir.write("exported.jsonl", exported), "--db", second])
            #expect(reingest.status == 0, "\(reingest.standardError)")
            #expect(runTool(["export", "--db", second]).standardOutput == exported)
        }

        @Test func statsAsJSON() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("events.db")
            #expect(runTool(["ingest", try dir.write("sample.jsonl", sampleJSONL), "--db", db]).status == 0)

            let run = runTool(["stats", "--db", db, "--json"])
            #expect(run.status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
            #expect(object?["events"] as? Int == 12)
            #expect(object?["users"] as? Int == 3)
            #expect(object?["first"] as? String == "2013-03-27T08:05:00-04:00")
            #expect(object?["last"] as? String == "2013-03-28T11:32:00+01:00")
            let byType = object?["by_type"] as? [String: Int] ?? [:]
            #expect(byType == Dictionary(uniqueKeysWithValues: EventType.allCases.map { ($0.rawValue, 1) }))
            #expect(run.standardOutput.hasPrefix(#"{"events":12,"users":3,"by_type":{"stack_config":1,"#))
            #expect(run.standardOutput.split(separator: "\n").count == 1)
        }

        @Test func statsOfAnEmptyLog() throws {
            let empty = EventStatistics(events: 0, users: 0, byType: [:], first: nil, last: nil)
            let json = StatsCommand.json(empty)
            #expect(json.hasPrefix(#"{"events":0,"users":0,"by_type":{"stack_config":0,"#))
            #expect(json.hasSuffix(#""relevance":0},"first":null,"last":null}"#))
            let table = StatsCommand.table(empty)
            #expect(table.split(separator: "\n").contains { $0.hasPrefix("first ") && $0.hasSuffix(" none") })
        }

        @Test func statsTableIsAligned() throws {
            let dir = try TemporaryDirectory()
            defer { dir.cleanUp() }
            let db = dir.file("events.db")
            #expect(runTool(["ingest", try dir.write("sample.jsonl", sampleJSONL), "--db", db]).status == 0)

            let run = runTool(["stats", "--db", db])
            #expect(run.status == 0)
            let lines = run.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first { $0.hasPrefix("events ") }?.hasSuffix(" 12") == true)
            #expect(lines.first { $0.hasPrefix("users ") }?.hasSuffix(" 3") == true)
            #expect(lines.contains { $0.hasPrefix("first ") && $0.hasSuffix(" 2013-03-27T08:05:00-04:00") })
            let typeRows = lines.filter { line in EventType.allCases.contains { line.hasPrefix("  \($0.rawValue) ") } }
            #expect(typeRows.count == EventType.allCases.count)
            #expect(Set(typeRows.map(\.count)).count == 1, "type rows are not right-aligned: \(typeRows)")
        }

        @Test func statsTableGroupsThousands() {
            let statistics = EventStatistics(
                events: 1_234_567, users: 2, byType: [.appLaunch: 1_234_000, .screenOn: 567],
                first: try? EventTime(rfc3339: "2013-03-27T08:05:00-04:00"),
                last: try? EventTime(rfc3339: "2013-04-27T08:05:00-04:00"))
            let table = StatsCommand.table(statistics)
            #expect(table.contains("1,234,567"))
            #expect(table.contains("  app_launch") && table.contains("1,234,000"))
        }
    }
}
