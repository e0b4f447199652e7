import Foundation
import SmartStack
import SmartStackDatasets

/// `smartstack shard <file ...> --shards N --out DIR [--json]`: splits JSONL (plain or gzip) by a
/// stable hash of the user into N files, each holding whole users, for evaluation on a cluster.
///
/// ```swift
/// let shard = try ShardCommand(arguments: ["big.jsonl.gz", "--shards", "8", "--out", "shards"])
/// // shard.count == 8
/// ```
public struct ShardCommand: SubcommandProtocol, Hashable {
    /// The subcommand's name.
    public static let name = "shard"
    /// One line for the SUBCOMMANDS list.
    public static let abstract = "Split JSONL files by user into N shards for evaluation on a cluster."
    /// The USAGE line.
    public static let usage = "smartstack shard <file ...> --shards <n> --out <dir> [--json]"
    /// The full help text.
    public static let help = """
        OVERVIEW: \(abstract)

        Streams the files (plain or gzip-compressed JSONL, in any order) and writes each event
        to shard fnv1a64(user) % n, so every shard holds whole users: evaluate each with
        'smartstack evaluate <shard> --partial <file>' and combine the partials with
        'smartstack merge'. Events keep their order (a file sorted by user gives shards sorted
        by user). Every line is checked; an invalid one stops the command, naming its file, line
        and column, and leaves no shard file. Shards are written as
        <dir>/shard-00000-of-0000n.jsonl ..., empty ones too (a shard the hash gives no user:
        'evaluate --partial' makes it a partial of no users, which 'merge' merges as nothing),
        under temporary names renamed when complete. Memory: the write buffers (at most about
        256 MiB) plus 8 bytes per user.

        USAGE: \(usage)

        ARGUMENTS:
        \(CommandLineTool.helpRows([("<file ...>", "SmartStack JSONL files, plain or gzip (by their first bytes).")]))

        OPTIONS:
        \(CommandLineTool.helpRows([
            ("--shards <n>", "How many shards (1...100000)."),
            ("--out <dir>", "The directory to write them into (created if missing)."),
            ("--json", "Print the shards (path, users, events) as JSON instead of a table."),
            ("-h, --help", "Show help information."),
        ]))
        """

    /// The input files.
    public var inputs: [String]
    /// How many shards.
    public var count: Int
    /// The output directory.
    public var directory: String
    /// Print JSON.
    public var json: Bool

    /// Parses the arguments (nothing is read).
    public init(arguments: [String]) throws(UsageError) {
        let args = try ParsedArguments(arguments, options: ["--shards", "--out"], flags: ["--json"])
        inputs = args.positional
        guard !inputs.isEmpty else { throw UsageError("missing argument <file ...>") }
        if inputs.contains("-") { throw UsageError("shard reads files, not standard input ('-')") }
        let text = try args.required("--shards")
        guard let n = Int(text), (1...100_000).contains(n) else {
            throw UsageError("invalid value '\(text)' for '--shards': expected an integer from 1 to 100000")
        }
        count = n
        directory = try args.required("--out")
        json = args.flag("--json")
    }

    public func run(_ output: CommandOutput) throws -> Int32 {
        let summary: DatasetSharder.Summary
        do { summary = try DatasetSharder(count: count).shard(inputs, into: directory) } catch {
            throw CommandFailure(error.message)
        }
        if json {
            let rows = summary.shards.map {
                "{\"shard\":\($0.index),\"path\":\(JSONLWriter.string($0.path)),\"users\":\($0.users),\"events\":\($0.events)}"
            }
            output.print("{\"shards\":[\(rows.joined(separator: ","))],\"users\":\(summary.users),\"events\":\(summary.events)}")
        } else {
            for s in summary.shards { output.print("\(s.path)\t\(s.users) users\t\(s.events) events") }
            output.print("\(summary.events) events of \(summary.users) users in \(count) shards")
        }
        return 0
    }
}
