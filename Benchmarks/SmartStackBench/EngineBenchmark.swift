// STUB — owned by the helper responsible for this benchmark.
import Foundation

func runEngineBenchmark(_ arguments: [String]) throws {
    print("engine benchmark: not written yet")
}
