import Foundation
import SmartStack
import SmartStackDatasets
import Testing

/// The fuzz seed corpus and every input a fuzzer ever crashed on (`Fuzz/Corpus/<target>/`),
/// replayed through the same checks as the libFuzzer targets in `Fuzz/Targets`: each input ends
/// in events or a clean error naming its source — never a crash — and every accepted event
/// survives a JSONL round trip. A crash found by `.ci/fuzz.sh` is fixed, and its input is added
/// to the corpus, so this suite keeps it fixed.
@Suite struct FuzzCorpusRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ target: String) -> [URL] {
        let directory = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The same property as the fuzz targets' `checkRoundTrip`, as a test expectation.
    static func expectRoundTrip(_ event: Event, _ source: String) {
        let line = JSONLWriter.line(for: event)
        var reader = JSONLReader(bytes: Array(line.utf8), name: "round-trip")
        let back = try? reader.next()
        #expect(back == event, "\(source): \(line) reads back as \(String(describing: back))")
    }

    @Test func jsonlCorpusNeverCrashesAndRoundTrips() throws {
        let files = Self.inputs("jsonl")
        #expect(files.count >= 4, "the JSONL seed corpus is missing")
        var accepted = 0, rejected = 0
        for file in files {
            var reader = JSONLReader(bytes: Array(try Data(contentsOf: file)), name: file.lastPathComponent)
            var lastFailedLine = -1
            while true {
                do {
                    guard let event = try reader.next() else { break }
                    accepted += 1
                    Self.expectRoundTrip(event, file.lastPathComponent)
                } catch {
                    #expect(error.description.hasPrefix(file.lastPathComponent + ":"), "\(error)")
                    if error.line <= 0 || error.line == lastFailedLine { break }
                    lastFailedLine = error.line
                    rejected += 1
                }
            }
        }
        #expect(accepted > 0 && rejected > 0, "the corpus has both valid and invalid lines")
    }

    @Test(arguments: [("studentlife", ImportFormat.studentlife), ("aware-screen", .awareScreen), ("obd", .obd),
                      ("lsapp", .lsapp), ("csv", .csv)])
    func importerCorpusNeverCrashesAndRoundTrips(target: String, format: ImportFormat) throws {
        let files = Self.inputs(target)
        #expect(files.count >= 2, "the \(target) seed corpus is missing")
        var imported = 0
        for file in files {
            for (variant, skipping) in [(0, false), (1, true), (2, false)] {
                var options = ImportOptions()
                options.skipInvalidRows = skipping
                if format == .csv {   // the mapping of Fuzz/Targets/CSVLogImportFuzz.swift
                    options.columns.time = "time"
                    options.columns.user = "user"
                    options.columns.app = "app"
                    options.columns.latitude = "lat"
                    options.columns.longitude = "lon"
                    options.columns.accuracy = "accuracy"
                    options.columns.timeFormat = [.unix, .unixMilliseconds, .rfc3339][variant]
                }
                do {
                    let result = try format.importFiles([file.path], options: options)
                    imported += result.events.count
                    for event in result.events { Self.expectRoundTrip(event, file.lastPathComponent) }
                } catch {
                    #expect(!error.message.isEmpty && error.file == file.path, "\(error)")
                }
            }
        }
        #expect(imported > 0, "some seeds of \(target) import")
    }
}

/// Inputs on which `.ci/fuzz.sh` found a crash (`Fuzz/Crashes/<format>/`), each run through the
/// built tool as a user would: `smartstack import` either ends with a clear error naming the
/// file (exit 1), or writes JSONL that `smartstack ingest` accepts. They run in child processes
/// so that a crash fails this test instead of killing the test run.
@Suite struct FuzzCrashRegressionTests {
    /// The column mapping of Fuzz/Targets/CSVLogImportFuzz.swift, as options of the tool.
    static let csvColumns = ["--time-column", "time", "--user-column", "user", "--app-column", "app",
                             "--lat-column", "lat", "--lon-column", "lon", "--accuracy-column", "accuracy"]

    /// Runs one crash input; returns what went wrong, `nil` when the tool behaved.
    static func problem(format: String, input: URL, in dir: TemporaryDirectory) throws -> String? {
        let out = dir.file("out-\(UUID().uuidString).jsonl")
        let arguments = ["import", format, input.path, "--out", out] + (format == "csv" ? csvColumns : [])
        let run = try runBinary(arguments, in: dir)
        switch run.status {
        case 0:
            let ingest = try runBinary(["ingest", out, "--db", dir.file("check-\(UUID().uuidString).db")], in: dir)
            return ingest.status == 0 ? nil
                : "import wrote JSONL that ingest rejects: \(ingest.standardError.prefix(300))"
        case 1:
            return run.standardError.hasPrefix("Error: \(input.path):") ? nil
                : "unclear error: \(run.standardError.prefix(300))"
        default:
            return "exit \(run.status) (a crash): \(run.standardError.prefix(200))"
        }
    }

    @Test(arguments: ["lsapp", "obd", "csv"])
    func crashInputsEndInAClearErrorOrValidJSONL(format: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let inputs = FuzzCorpusRegressionTests.inputs("../Crashes/\(format)")
        #expect(!inputs.isEmpty, "no crash inputs for \(format)")
        // Found by the fuzz targets in the importers (now fixed, kept as regressions):
        // - lsapp, obd, csv rfc3339: a date after 2262 or before 1678 overflowed Int64 nanoseconds
        //   in ImportTime (a runtime trap); now a clear import error.
        // - csv: a negative accuracy was imported as is, and the JSONL written was then refused
        //   by ingest; now a clear import error naming the column.
        for input in inputs {
            let problem = try Self.problem(format: format, input: input, in: dir)
            #expect(problem == nil, "\(format) \(input.lastPathComponent): \(problem ?? "")")
        }
    }
}
