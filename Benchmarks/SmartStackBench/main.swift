import Foundation

// smartstack-bench <name>: each benchmark lives in its own file and prints its figures.
let arguments = Array(CommandLine.arguments.dropFirst())
let benchmarks: [(name: String, summary: String, run: ([String]) throws -> Void)] = [
    ("ingest", "JSONL parse, JSONL -> store, store append vs raw SQLite (issue 2)", runIngestBenchmark),
    ("engine", "ranking latency, recording rate, cold start and memory (issue 3)", runEngineBenchmark),
    ("replay", "evaluator replay rate, scaling and memory (issue 4)", runReplayBenchmark),
    ("bindings", "the C API against the Swift API: decide latency, JSONL batch recording (issue 15)", runBindingsBenchmark),
    ("past-instants", "answers at a past instant (rebuilt from the log) against live ones (docs/contract.md)", runPastInstantBenchmark),
    ("workload", "one fixed workload for the CI performance record (run under callgrind by Benchmarks/perf/record.py)", runWorkloadBenchmark),
]
guard let name = arguments.first, let bench = benchmarks.first(where: { $0.name == name }) else {
    print("USAGE: smartstack-bench <benchmark> [options]\n\nBENCHMARKS:")
    for b in benchmarks { print("  \(b.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(b.summary)") }
    exit(arguments.isEmpty ? 0 : 64)
}
do {
    try bench.run(Array(arguments.dropFirst()))
} catch {
    FileHandle.standardError.write("Error: \(error)\n".data(using: .utf8)!)
    exit(1)
}
