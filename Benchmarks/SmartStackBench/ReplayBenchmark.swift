// STUB — owned by the helper responsible for this benchmark.
import Foundation

func runReplayBenchmark(_ arguments: [String]) throws {
    print("replay benchmark: not written yet")
}
