// The executable only hands the command line to ClawTalkCLI, which parses, composes and runs.
import ClawTalkCLI
import Foundation

exit(await ClawTalk.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
