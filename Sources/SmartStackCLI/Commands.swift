/// Every subcommand, in the order `smartstack --help` lists them. Each helper appends its own.
public let allSubcommands: [any SubcommandProtocol.Type] = [
    IngestCommand.self,
    ExportCommand.self,
    StatsCommand.self,
    EvaluateCommand.self,
    GenerateCommand.self,
    ImportCommand.self,
    OffPolicyCommand.self,
    RankCommand.self,
    RebuildCommand.self,
    PoliciesCommand.self,
]
