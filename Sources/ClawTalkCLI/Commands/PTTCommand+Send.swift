import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkSupport
import Foundation

extension PTTCommand {
    /// Sends `command` to the running service's control socket and prints its answer:
    /// `started <id>`, or `<status> <id>` and the transcript on the next line (`--json`: the
    /// answer line as received). Exit 0 on an answer; 69 when no service runs or the
    /// microphone or STT is unavailable; 1 for other failures.
    /// `render` turns an answer into the printed text (`clawtalk talk` passes its own).
    static func send(
        _ command: ControlRequest.Command, json: Bool, context: CommandContext,
        render: (ControlResponse) -> String = PTTCommand.render
    ) async throws -> Int32 {
        let path = try socketPath(environment: context.environment)
        let response: ControlResponse
        do {
            response = try await ControlSocketClient.send(command, to: path)
        } catch .notRunning(let path) {
            throw CLIError.unavailable(ControlSocketError.notRunning(path).description)
        } catch {
            throw CLIError.unavailable("\(error)")
        }
        if json {
            context.io.writeOutput(String(decoding: response.line(), as: UTF8.self))
        } else if response.ok {
            context.io.writeOutput(render(response))
        }
        guard response.ok else {
            let message = response.error ?? "the service refused the command"
            throw isUnavailable(message) ? CLIError.unavailable(message) : CLIError.failed(message)
        }
        return ExitCode.success.rawValue
    }

    /// `ptt.controlSocket` from the configuration, else `$XDG_RUNTIME_DIR/clawtalk/control.sock`.
    static func socketPath(environment: [String: String]) throws -> String {
        let settings: Settings
        do {
            settings = try ConfigLoader(environment: environment).load().settings
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        let paths = XDGPaths(environment: environment)
        return settings.ptt.resolvedControlSocket(paths: paths)
    }

    /// The human form of an answer.
    static func render(_ response: ControlResponse) -> String {
        var text = "\(response.status ?? "ok") \(response.captureId ?? "-")\n"
        if let transcript = response.transcript { text += transcript + "\n" }
        return text
    }

    /// Failures that mean the microphone, STT or audio stack cannot be used (exit 69).
    static func isUnavailable(_ message: String) -> Bool {
        ["MICROPHONE_PERMISSION_REQUIRED:", "MIC_BUSY:", "STT_UNAVAILABLE:", "NODE_NOT_READY:"].contains {
            message.hasPrefix($0)
        }
    }
}
