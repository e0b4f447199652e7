import Foundation
import SmartStackEvaluation

/// `smartstack ope-check obd`: the off-policy estimators on the real Open Bandit Dataset sample.
///
/// ```sh
/// smartstack ope-check obd --data ../shared/datasets/obd --seed 1
/// ```
public struct OffPolicyCommand: SubcommandProtocol {
    /// `ope-check`.
    public static let name = "ope-check"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Check the off-policy estimators on the Open Bandit Dataset sample"
    /// The USAGE line.
    public static let usage = "smartstack ope-check obd [--data <dir>] [--bootstrap <n>] [--seed <n>] [--json]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Estimates the uniform-random policy's click rate from the Bernoulli Thompson Sampling log
        (IPS, SNIPS, DM, DR, Switch-DR, DRos, replay) and shows it next to the rate observed in the
        random log; then the reverse (BTS from the random log). Intervals: percentile bootstrap
        over rounds, seeded, so every run prints the same figures.

        USAGE: \(usage)

        ARGUMENTS:
          obd                     The dataset to check (the only one so far).

        OPTIONS:
          --data <dir>            Folder with random_all.csv.gz and bts_all.csv.gz
                                  (default: ../shared/datasets/obd).
          --bootstrap <n>         Bootstrap resamples (default: 1000; 0 = no intervals).
          --seed <n>              Bootstrap seed (default: 1).
          --json                  Print the full result as JSON on stdout.
          -h, --help              Show help information.
        """

    /// The data folder.
    public var dataDirectory: String
    /// Bootstrap resamples.
    public var bootstrapSamples: Int
    /// Bootstrap seed.
    public var seed: UInt64
    /// Whether to print JSON.
    public var json: Bool

    /// Parses `obd [--data DIR] [--bootstrap N] [--seed N] [--json]`.
    public init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: ["--data", "--bootstrap", "--seed"], flags: ["--json"])
        guard let dataset = parsed.positional.first else { throw UsageError("missing dataset (expected 'obd')") }
        guard dataset == "obd" else { throw UsageError("unknown dataset '\(dataset)' (expected 'obd')") }
        guard parsed.positional.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positional[1])'")
        }
        dataDirectory = parsed.value("--data") ?? "../shared/datasets/obd"
        let samples = parsed.value("--bootstrap") ?? "1000"
        guard let n = Int(samples), n >= 0 else {
            throw UsageError("--bootstrap must be a whole number >= 0, got '\(samples)'")
        }
        bootstrapSamples = n
        let seedText = parsed.value("--seed") ?? "1"
        guard let s = UInt64(seedText) else { throw UsageError("--seed must be a whole number >= 0, got '\(seedText)'") }
        seed = s
        json = parsed.flag("--json")
    }

    /// Runs the check and prints the figures (or JSON).
    public func run(_ output: CommandOutput) throws -> Int32 {
        let report: OpenBanditCheck.Report
        do {
            report = try OpenBanditCheck.run(directory: dataDirectory,
                                             bootstrap: BootstrapOptions(samples: bootstrapSamples), seed: seed)
        } catch {
            throw CommandFailure("\(error)")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(report)
            output.print(String(decoding: data, as: UTF8.self))
            return 0
        }
        let intervals = bootstrapSamples > 0
            ? "95% percentile bootstrap intervals over rounds (\(bootstrapSamples) resamples, seed \(seed))"
            : "no intervals (--bootstrap 0)"
        output.print("Open Bandit Dataset sample (\(dataDirectory)); \(intervals)")
        output.print("")
        section(output, title: "Uniform-random policy estimated from the Bernoulli-TS log",
                observedLabel: "observed in the random log", observed: report.observedRandom,
                result: report.uniformFromBTS)
        output.print("  note: replay is unbiased only under uniform logging; from the BTS log with a uniform target")
        output.print("        it is the BTS log's own click rate. DM intervals hold the reward model fixed.")
        output.print("")
        section(output, title: "Bernoulli-TS policy estimated from the random log "
                + "(BTS distribution = its per-position item shares in its own log)",
                observedLabel: "observed in the BTS log", observed: report.observedBTS, result: report.btsFromRandom)
        return 0
    }

    private func section(_ output: CommandOutput, title: String, observedLabel: String,
                         observed: OpenBanditCheck.ObservedRate, result: OffPolicyResult) {
        output.print("\(title), \(result.rounds) rounds")
        output.print("  " + pad(observedLabel, 28) + pad(Self.format(observed.rate), 10) + Self.format(interval: observed.ci)
                     + "  (\(observed.clicks) clicks / \(observed.rounds))")
        for estimate in result.estimates {
            output.print("  " + pad(estimate.estimator.key, 28) + pad(estimate.value.map(Self.format) ?? "undefined", 10)
                         + Self.format(interval: estimate.interval))
        }
        let d = result.diagnostics
        let support = d.zeroSupportShare.map { Self.format($0) } ?? "unknown (logging support not in the log)"
        output.print("  diagnostics: ESS \(String(format: "%.1f", d.effectiveSampleSize)) of \(result.rounds), "
                     + "max weight \(String(format: "%.2f", d.maxWeight)), mean weight \(String(format: "%.3f", d.meanWeight)), "
                     + "zero-weight share \(Self.format(d.zeroWeightShare)), zero-support share \(support)")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func format(_ value: Double) -> String { String(format: "%.5f", value) }

    private static func format(interval: [Double]?) -> String {
        guard let interval, interval.count == 2 else { return "" }
        return "[\(format(interval[0])), \(format(interval[1]))]"
    }
}
