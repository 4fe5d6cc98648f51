// `clawtalk bench …` replaces itself with this executable (arguments after `bench`); it can also
// be run directly: `clawtalk-bench loopback --quick`.
import ClawTalkBench
import Foundation

let code = await BenchProgram.main(
    arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
// As in `clawtalk`: work abandoned in a C library may still run on its own thread, so flush stdio
// and leave without C++ static destructors. Children end with the process (see ChildProcess).
fflush(nil)
_exit(code)
