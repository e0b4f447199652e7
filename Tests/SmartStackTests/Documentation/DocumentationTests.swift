import Foundation
import Testing
import SmartStack

/// The documentation catalog `Sources/SmartStack/SmartStack.docc`: its links resolve and its
/// getting-started code runs.
@Suite struct DocumentationTests {
    @Test func everyLinkOfTheCatalogResolves() throws {
        let pages = try DocumentationCheck.catalog(of: "SmartStack")
        #expect(pages.count >= 5)
        let symbols = SymbolIndex(try LayerCheck.sources(of: "SmartStack"))
        let broken = DocumentationCheck.brokenLinks(pages, module: "SmartStack", symbols: symbols)
        #expect(broken.isEmpty, "\(broken.count) broken links:\n\(broken.joined(separator: "\n"))")
    }

    @Test func theSymbolIndexKnowsPublicSymbolsOnly() {
        let symbols = SymbolIndex([SwiftSource(path: "Sources/M/A/Engine.swift", text: """
            /// An engine.
            public final class Engine: Sendable {
                public enum Kind: Sendable {
                    case open, closed
                }
                public let store: String
                let secret = 1
                public init(path: String, policy: String = String("x"), onNotice: (@Sendable (String) -> Void)? = nil) {}
                public func erase(app: String) throws -> Int { 0 }
                func hidden() {}
                public func withLock<R>(_ body: (inout Int) throws -> R) rethrows -> R { fatalError() }
            }
            struct Internal { public var x = 0 }
            extension Engine {
                public func ranking(stack: String,
                                    at time: Double) -> Int { 0 }
            }
            """)])
        for link in ["M", "Engine", "Engine/Kind", "Engine/Kind/closed", "Engine/store", "Engine/init(path:policy:onNotice:)",
                     "Engine/erase(app:)", "Engine/withLock(_:)", "Engine/ranking(stack:at:)"] {
            #expect(symbols.resolves(link, module: "M"), "\(link)")
        }
        for link in ["Engine/secret", "Engine/hidden()", "Internal", "Internal/x", "Engine/erase(user:)", "Engine/ranking(stack:time:)", "Nothing"] {
            #expect(!symbols.resolves(link, module: "M"), "\(link)")
        }
    }

    @Test func aBrokenLinkIsNamedWithItsFileAndLine() {
        let symbols = SymbolIndex([SwiftSource(path: "Sources/M/A/Engine.swift", text: "public struct Engine {}\n")])
        let pages = [DocumentationCheck.Page(path: "M.docc/Guide.md", text: """
            # Guide

            Uses ``Engine`` and ``Engin``, see <doc:Guide> and <doc:Missing>.

            ```swift
            let x = ``NotALink``
            ```
            """)]
        #expect(DocumentationCheck.brokenLinks(pages, module: "M", symbols: symbols) == [
            "M.docc/Guide.md:3: ``Engin`` does not name a public symbol of M",
            "M.docc/Guide.md:3: <doc:Missing> names no article of the catalog",
        ])
    }

    /// The code of GettingStarted.md, verbatim between the markers (checked below).
    func gettingStarted(databasePath: String) throws -> RotationDecision {
        // getting-started: begin
        // Open (or create) the engine's database with SmartStack's model, a 14-day memory.
        let engine = try Engine(path: databasePath, policy: .contextual(halfLife: .days(14)))
        let now = try EventTime(rfc3339: "2026-03-02T08:05:00-05:00")

        // The person's stack, in their order.
        try engine.configure(stack: "home", widgets: [
            WidgetConfig(id: "calendar", app: "com.apple.mobilecal"),
            WidgetConfig(id: "weather", app: "com.apple.weather"),
        ], user: "me", at: now)

        // Signals as they happen, one by one or in batches, from any thread.
        try engine.record(Event(time: now, user: "me", payload: .place("work")))
        try engine.record(Event(time: now.adding(seconds: 60), user: "me", payload: .appLaunch(app: "com.apple.mobilecal")))

        // At screen-on: what goes on top, and why.
        let decision = try engine.decide(stack: "home", user: "me", at: now.adding(seconds: 300))
        print("top:", decision.top ?? "none")
        for widget in decision.ranking.widgets {
            print(widget.widget, widget.reasons.map(\.text))
        }

        // Errors say what went wrong in words and in a kind a host can branch on.
        do {
            _ = try engine.ranking(stack: "gym", user: "me", at: now)
        } catch let error as EngineError where error.kind == .unknownStack {
            print("not configured yet:", error.message)
        }

        // Saves each person's state: the next engine on this file answers at once.
        try engine.close()
        // getting-started: end
        return decision
    }

    @Test func gettingStartedArticleRuns() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smartstack-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let decision = try gettingStarted(databasePath: path)
        // The calendar's app was just used: it goes on top, and the saved state answers the same.
        #expect(decision.top == "calendar" && decision.ranking.widgets.count == 2)
        let reopened = try Engine(path: path, policy: .contextual(halfLife: .days(14)))
        let at = try EventTime(rfc3339: "2026-03-02T08:10:00-05:00")
        #expect(try reopened.ranking(stack: "home", user: "me", at: at) == decision.ranking)
        #expect(reopened.notices.isEmpty)
    }

    @Test func gettingStartedArticleShowsTheCodeItsTestRuns() throws {
        let article = try #require(try DocumentationCheck.catalog(of: "SmartStack").first { $0.path.hasSuffix("/GettingStarted.md") })
        let shown = DocumentationCheck.firstSwiftBlock(article.text)
        let run = try #require(try DocumentationCheck.markedCode(inFile: #filePath, marker: "getting-started"))
        #expect(!shown.isEmpty && shown == run)
    }
}
