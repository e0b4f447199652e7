/// Every subcommand, in the order `smartstack --help` lists them.
public let allSubcommands: [any SubcommandProtocol.Type] = [
    IngestCommand.self,
    ExportCommand.self,
    StatsCommand.self,
    EvaluateCommand.self,
    ExportDecisionsCommand.self,
    ShardCommand.self,
    MergeCommand.self,
    GenerateCommand.self,
    ImportCommand.self,
    PriorCommand.self,
    ForgetCommand.self,
    OffPolicyCommand.self,
    RankCommand.self,
    RebuildCommand.self,
    PoliciesCommand.self,
]
