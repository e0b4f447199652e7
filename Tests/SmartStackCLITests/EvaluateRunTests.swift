import Foundation
import Testing
import SmartStack
@testable import SmartStackCLI
import SmartStackEvaluation

/// `smartstack evaluate` run in-process on small JSONL files it writes itself.
@Suite struct EvaluateRunTests {
    /// A temporary directory with `data.jsonl`: two users with a stack and screen_on sessions
    /// over 3 days, plus (optionally) a user without any stack.
    final class Workspace {
        let dir: URL
        var data: String { dir.appendingPathComponent("data.jsonl").path }

        init(withStacklessUser: Bool = false, withStacks: Bool = true) throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("evaluate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            var bytes: [UInt8] = []
            let base: Int64 = 1_704_096_000 * 1_000_000_000
            func at(_ minutes: Int) -> EventTime { EventTime(nanosecondsSinceEpoch: base + Int64(minutes) * 60_000_000_000, utcOffsetSeconds: -18_000) }
            let apps = ["mail", "maps", "notes", "music"]
            for u in 0..<2 {
                let user = "u\(u)"
                if withStacks {
                    JSONLWriter.append(Event(time: at(0), user: user, payload: .stackConfig(
                        stack: "main", widgets: apps.map { WidgetConfig(id: $0, app: "app.\($0)") })), to: &bytes)
                }
                for k in 0..<(3 * 24 * 2) {
                    let t = k * 30 + 1
                    JSONLWriter.append(Event(time: at(t), user: user, payload: .screenOn), to: &bytes)
                    let app = apps[(k / 6 + u) % apps.count]
                    JSONLWriter.append(Event(time: at(t + 1), user: user, payload: .appLaunch(app: "app.\(app)")), to: &bytes)
                }
            }
            if withStacklessUser {
                JSONLWriter.append(Event(time: at(5), user: "loner", payload: .screenOn), to: &bytes)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: data))
        }

        deinit { try? FileManager.default.removeItem(at: dir) }
    }

    static func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let box = Box()
        let output = CommandOutput(standardOutput: { box.out += $0 }, standardError: { box.err += $0 })
        let code = try EvaluateCommand(arguments: arguments).run(output)
        return (code, box.out, box.err)
    }

    final class Box { var out = ""; var err = "" }

    @Test func printsAnAlignedTableWithOptionsAndPairedDifferences() throws {
        let w = try Workspace()
        let (code, out, err) = try Self.run([w.data, "--policies", "static,mru", "--reference", "static", "--warmup-days", "1", "--bootstrap", "50"])
        #expect(code == 0)
        #expect(err.isEmpty)
        #expect(out.contains("Options: window 10m, merge repeats on, warm-up 1 days, seed 0"))
        let lines = out.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("policy") && $0.contains("hit@1") })
        let staticRow = try #require(lines.first { $0.hasPrefix("static ") })
        let mruRow = try #require(lines.first { $0.hasPrefix("mru ") })
        #expect(header.count == staticRow.count && staticRow.count == mruRow.count)   // aligned
        #expect(out.contains("Paired difference against static"))
    }

    @Test func jsonAndReportDirectory() throws {
        let w = try Workspace()
        let reportDir = w.dir.appendingPathComponent("report").path
        let (code, out, _) = try Self.run([w.data, "--policies", "static,frecency", "--warmup-days", "0", "--bootstrap", "20", "--json", "--report", reportDir])
        #expect(code == 0)
        let report = try EvaluationReport(jsonData: Data(out.utf8))
        #expect(report.policies.map(\.name) == ["static", "frecency"])
        #expect(report.options.warmupDays == 0)
        #expect(report.dataset.usersEvaluated == 2)
        let written = try Data(contentsOf: URL(fileURLWithPath: reportDir + "/report.json"))
        #expect(written == Data(out.utf8))
        let md = try String(contentsOfFile: reportDir + "/report.md", encoding: .utf8)
        #expect(md.contains("frecency"))
        #expect(md.contains("## Provenance") && md.contains("smartstack evaluate"))
        let html = try String(contentsOfFile: reportDir + "/report.html", encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("</html>"))
    }

    @Test func aCalmerRotationRotatesLessAndIsPrintedInTheReport() throws {
        let w = try Workspace()
        func rotations(_ rotation: String?) throws -> (Double, String) {
            var args = [w.data, "--policies", "mru", "--warmup-days", "0", "--bootstrap", "0", "--json"]
            if let rotation { args += ["--rotation", rotation] }
            let (code, out, _) = try Self.run(args)
            #expect(code == 0)
            let report = try EvaluationReport(jsonData: Data(out.utf8))
            return (try #require(report.policies.first?.metrics[.rotationsPerActiveHour]), report.options.rotation)
        }
        let (free, freeText) = try rotations("margin=0,dwell=0s,cap=none")
        // A fixed dwell: the record of early rotations (confidence) would otherwise release it.
        let (calm, calmText) = try rotations("dwell=6h,confidence=off")
        let (_, defaultText) = try rotations(nil)
        #expect(freeText == "margin=0.0,dwell=0s,cap=none,swipe_hold=10m,confidence=0.95,new_confidence=0.8")
        #expect(calmText == "margin=0.1,dwell=6h,cap=48,swipe_hold=10m,confidence=off,new_confidence=0.8")
        #expect(defaultText == "margin=0.1,dwell=15m,cap=48,swipe_hold=10m,confidence=0.95,new_confidence=0.8")
        #expect(calm < free)
        #expect {
            _ = try Self.run([w.data, "--rotation", "margin=7"])
        } throws: { ($0 as? UsageError)?.message.contains("--rotation: rotation parameter margin=7") == true }
    }

    @Test func anUnknownPolicyIsAUsageError() throws {
        let w = try Workspace()
        #expect {
            _ = try Self.run([w.data, "--policies", "static,psychic"])
        } throws: { ($0 as? UsageError)?.message.contains("unknown policy 'psychic' (valid: all, "
                                                           + PolicyRegistry.names.joined(separator: ", ") + ", oracle)") == true }
    }

    @Test func theOracleNeedsAGroundTruth() throws {
        let w = try Workspace()
        #expect {
            _ = try Self.run([w.data, "--policies", "oracle"])
        } throws: { ($0 as? UsageError)?.message.contains("--truth") == true }
    }

    @Test func aDatasetWithoutStacksFails() throws {
        let w = try Workspace(withStacks: false)
        #expect {
            _ = try Self.run([w.data, "--policies", "static", "--warmup-days", "0"])
        } throws: { ($0 as? CommandFailure)?.message.contains("no stacks") == true }
    }

    @Test func aUserWithoutStacksIsReportedOnStandardError() throws {
        let w = try Workspace(withStacklessUser: true)
        let (code, _, err) = try Self.run([w.data, "--policies", "static", "--warmup-days", "0", "--bootstrap", "0"])
        #expect(code == 0)
        #expect(err.contains("warning: user 'loner' skipped: no stack_config event"))
    }
}
