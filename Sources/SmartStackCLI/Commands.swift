/// Every subcommand, in the order `smartstack --help` lists them. Each helper appends its own.
public let allSubcommands: [any SubcommandProtocol.Type] = [
]
