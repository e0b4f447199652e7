import Foundation
import SmartStack
import SmartStackCLI
import SmartStackDatasets
import Testing

/// `smartstack import usage-history ... --db`: a phone's history stored as the person's backfill.
@Suite struct ImportUsageHistoryCommandTests {
    static let stacks = """
        {"time":"2026-01-05T00:00:00-05:00","type":"stack_config","user":"me","id":"c1","stack":"home","widgets":[{"id":"calendar","app":"calendar"},{"id":"weather","app":"org.weather"},{"id":"notes"}]}

        """
    static let history = """
        timestamp,utc_offset,package,event_type
        1767268800000,-05:00,com.google.android.calendar,1
        1767290400000,-05:00,org.weather,1
        1767355200000,-05:00,com.google.android.calendar,1
        1767376800000,-05:00,org.weather,1

        """

    static func database(_ dir: TemporaryDirectory) throws -> String {
        let events = try dir.write("stacks.jsonl", stacks)
        let db = dir.file("s.db")
        #expect(runTool(["ingest", events, "--db", db]).status == 0)
        return db
    }

    static func count(_ db: String) throws -> Int {
        let store = try EventStore(path: db)
        return try store.count(EventQuery())
    }

    @Test func aHistoryIsStoredOnceAndSaysWhatItHoldsForEachWidget() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try Self.database(dir)
        let csv = try dir.write("usage.csv", Self.history)
        let first = runTool(["import", "usage-history", csv, "--user", "me", "--map", "com.google.android.calendar=calendar", "--db", db])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.isEmpty)
        #expect(first.standardError.contains("stored 4 launches for user 'me' in \(db)"))
        #expect(first.standardError.contains("widget 'calendar' of stack 'home' (app 'calendar'): 2 launches in the history"))
        #expect(first.standardError.contains("widget 'notes' of stack 'home' names no app"))
        #expect(try Self.count(db) == 5)
        let again = runTool(["import", "usage-history", csv, "--user", "me", "--map", "com.google.android.calendar=calendar", "--db", db])
        #expect(again.status == 0)
        #expect(again.standardError.contains("stored 0 launches for user 'me' in \(db); 4 already stored (skipped)"))
        #expect(try Self.count(db) == 5)
        // The engine ranks from it: in the evening the weather's app was the one opened.
        let rank = runTool(["rank", "--db", db, "--user", "me", "--stack", "home", "--at", "2026-01-05T18:05:00-05:00", "--json"])
        #expect(rank.status == 0)
        #expect(rank.standardOutput.contains(#""ranking":[{"widget":"weather""#), "\(rank.standardOutput)")
    }

    @Test func aHistoryAfterLiveEventsIsRefusedNamingTheLineAndNothingIsStored() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try Self.database(dir)
        let live = try dir.write("live.jsonl", #"{"time":"2026-01-05T09:00:00-05:00","type":"app_launch","user":"me","id":"live-1","app":"org.mail"}"# + "\n")
        #expect(runTool(["ingest", live, "--db", db]).status == 0)
        let csv = try dir.write("usage.csv", Self.history)
        let run = runTool(["import", "usage-history", csv, "--user", "me", "--db", db])
        #expect(run.status == 1)
        #expect(run.standardError.hasPrefix("Error: \(csv):2: history launch 'usage-1767268800000-com.google.android.calendar'"))
        #expect(run.standardError.contains("is older than the app_launch event 'live-1' of user 'me'"))
        #expect(run.standardError.contains("nothing was stored"))
        #expect(try Self.count(db) == 2)
        // The store still answers.
        #expect(runTool(["rank", "--db", db, "--user", "me", "--stack", "home", "--at", "2026-01-05T18:05:00-05:00"]).status == 0)
    }

    @Test func aHistoryInTheWrongZoneIsNamedOrNoted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try Self.database(dir)
        let utc = try dir.write("utc.csv", "timestamp,package\n1767268800000,org.weather\n")
        let refused = runTool(["import", "usage-history", utc, "--user", "me", "--db", db])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("\(utc):2: column 'timestamp': the time has no UTC offset"))
        let guessed = runTool(["import", "usage-history", utc, "--user", "me", "--utc-offset", "+00:00", "--db", db])
        #expect(guessed.status == 0)
        #expect(guessed.standardError.contains("the history's UTC offsets (+00:00) all differ from that of user 'me''s latest recorded event (-05:00)"))
    }

    @Test func severalPeopleOrBadOptionsAreRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try Self.database(dir)
        let two = try dir.write("two.csv", "timestamp,utc_offset,package,user\n1767268800000,-05:00,a,ann\n1767268800000,-05:00,a,bob\n")
        let run = runTool(["import", "usage-history", two, "--db", db])
        #expect(run.status == 1)
        #expect(run.standardError.contains("a history backfills one person, but \(two) holds 2 users (ann, bob)"))
        #expect(try Self.count(db) == 1)
        func usage(_ arguments: [String]) -> String? {
            do { _ = try ImportCommand(arguments: arguments); return nil } catch { return error.message }
        }
        #expect(usage(["usage-history", "u.csv", "--map", "nokey"]) == "'--map' takes <package>=<app>, got 'nokey'")
        #expect(usage(["usage-history", "u.csv", "--map", "a=x,a=y"]) == "'--map': package 'a' is mapped twice")
        #expect(usage(["usage-history", "u.csv", "--db", "x", "--out", "y"]) == "give either '--out' or '--db', not both")
        #expect(usage(["usage-history", "u.csv", "--stack-size", "3"])?.hasPrefix("'--stack-size' does not apply to usage-history") == true)
        #expect(usage(["csv", "u.csv", "--time-column", "t", "--app-column", "a", "--db", "x"]) == "'--db' applies to format 'usage-history' only, not 'csv'")
        let c = try ImportCommand(arguments: ["usage-history", "u.csv", "--map", "a=x,b=y", "--map", "c=z", "--only-mapped", "--timezone", "Europe/Paris"])
        #expect(c.options.appMap == ["a": "x", "b": "y", "c": "z"])
        #expect(c.options.onlyMapped)
    }

    @Test func withoutDatabaseTheHistoryIsWrittenAsJSONL() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let csv = try dir.write("usage.csv", Self.history)
        let map = try dir.write("map.csv", "package,app\ncom.google.android.calendar,calendar\n")
        let run = runTool(["import", "usage-history", csv, "--user", "me", "--map-file", map, "--out", dir.file("h.jsonl")])
        #expect(run.status == 0, "\(run.standardError)")
        let written = try events(inJSONL: String(contentsOfFile: dir.file("h.jsonl"), encoding: .utf8))
        #expect(written.map(\.id) == ["usage-1767268800000-com.google.android.calendar", "usage-1767290400000-org.weather",
                                      "usage-1767355200000-com.google.android.calendar", "usage-1767376800000-org.weather"])
        #expect(written.allSatisfy { if case .appLaunch(let app) = $0.payload { return app != "com.google.android.calendar" }; return false })
    }
}
