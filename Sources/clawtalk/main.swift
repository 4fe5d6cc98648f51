// The executable only hands the command line to ClawTalkCLI, which parses, composes and runs.
import ClawTalkCLI
import Foundation

let code = await ClawTalk.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
// `clawtalk run` may return while work it abandoned on a stop (a model load in a C library)
// still runs on its own thread; C++ static destructors run by exit() could race it. Flush
// stdio and leave without them. Children end with the process (see ChildProcess).
fflush(nil)
_exit(code)
