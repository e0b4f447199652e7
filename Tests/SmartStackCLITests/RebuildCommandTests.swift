import Foundation
import SmartStack
@testable import SmartStackCLI
import Testing

@Suite struct RebuildCommandTests {
    @Test func rebuildRecomputesTheStateAndRankingsStayTheSame() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try RankFixture.database(in: dir)
        let at = RankFixture.time(day: 11, hour: 8).rfc3339
        let before = runTool(["rank", "--db", db, "--stack", "home", "--at", at, "--user", "ana", "--json"])
        let store = try EventStore(path: db)
        let key = Engine.stateKey(policy: PolicySpec(name: "contextual"), rotation: RotationParameters(), seed: 0)
        try store.saveState(user: "ana", key: key, sequence: 5, blob: [0, 1, 2])   // garbage

        let run = runTool(["rebuild", "--db", db])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "rebuilt the contextual state of 2 users from \(RankFixture.events().count) events\n")
        let saved = try #require(try store.loadState(user: "ana", key: key))
        #expect(saved.sequence == (try store.lastSequence()) - 1)   // bo's last launch is the last event
        let after = runTool(["rank", "--db", db, "--stack", "home", "--at", at, "--user", "ana", "--json"])
        #expect(after.standardOutput == before.standardOutput && after.standardError.isEmpty)
    }

    @Test func rebuildForAnotherPolicySavesUnderItsKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try RankFixture.database(in: dir, withState: false)
        let run = runTool(["rebuild", "--db", db, "--policy", "frecency:half_life=2d"])
        #expect(run.status == 0)
        let key = Engine.stateKey(policy: try PolicySpec(parsing: "frecency:half_life=2d"), rotation: RotationParameters(), seed: 0)
        #expect(try EventStore(path: db).loadState(user: "bo", key: key) != nil)
    }

    @Test func errors() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        #expect(runTool(["rebuild"]).status == 64)
        let missing = runTool(["rebuild", "--db", dir.file("none.db")])
        #expect(missing.status == 1 && missing.standardError == "Error: no database at \(dir.file("none.db"))\n")
        let db = try RankFixture.database(in: dir)
        let bad = runTool(["rebuild", "--db", db, "--policy", "best"])
        #expect(bad.status == 1 && bad.standardError.hasPrefix("Error: --policy: unknown policy 'best'"))
    }
}

@Suite struct PoliciesCommandTests {
    @Test func listsEveryPolicyWithItsParametersAligned() {
        let run = runTool(["policies"])
        #expect(run.status == 0)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        for policy in PolicyRegistry.policies {
            let row = lines.first { $0.hasPrefix("  \(policy.name) ") }
            #expect(row != nil, "\(policy.name)")
            for parameter in policy.parameters {
                #expect(lines.contains { $0.hasPrefix("    \(parameter.name)=\(parameter.defaultValue) ") })
            }
        }
        // One description column for policies and parameters.
        let starts = Set(lines.dropFirst().filter { !$0.hasPrefix("      ") }.compactMap { line -> Int? in
            let chars = Array(line)
            guard let i = (2..<chars.count).first(where: { chars[$0 - 1] == " " && chars[$0 - 2] == " " && chars[$0] != " " && $0 > 4 }) else { return nil }
            return i
        })
        #expect(starts.count == 1)
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test func jsonListsNamesDefaultsAndParameters() throws {
        let run = runTool(["policies", "--json"])
        #expect(run.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
        #expect(array.compactMap { $0["name"] as? String } == PolicyRegistry.names)
        #expect(array.filter { $0["default"] as? Bool == true }.compactMap { $0["name"] as? String } == [PolicyRegistry.defaultPolicy])
        let contextual = try #require(array.first { $0["name"] as? String == "contextual" })
        let parameters = try #require(contextual["parameters"] as? [[String: String]])
        #expect(parameters.contains { $0["name"] == "half_life" && $0["default"] == "14d" })
        #expect(runTool(["policies", "extra"]).status == 64)
    }
}
