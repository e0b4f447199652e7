// STUB — owned by the helper responsible for this benchmark.
import Foundation

func runIngestBenchmark(_ arguments: [String]) throws {
    print("ingest benchmark: not written yet")
}
