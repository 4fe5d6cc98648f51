/// One element of the command line after tokenising (phase 1), remembering where it came from.
public struct ArgumentToken: Equatable, Sendable {
    /// What the tokenizer recognised.
    public enum Kind: Equatable, Sendable {
        /// `--name` or `--name=value` (the value is attached only in the `=` form).
        case long(String, value: String?)
        /// One letter of `-v` or of a packed group such as `-vq`.
        case short(Character)
        /// Anything else: a subcommand name, an option's value or a positional argument.
        case value(String)
        /// `--`: every later token is a value, even if it starts with a dash.
        case terminator
    }

    /// What the tokenizer recognised.
    public var kind: Kind
    /// Index of the source argument in the argument list after the program name.
    public var position: Int

    /// A token of `kind` taken from the argument at `position`.
    public init(_ kind: Kind, position: Int) {
        self.kind = kind
        self.position = position
    }

    /// The token as the user would recognise it in an error message (`--file`, `-v`, `text`).
    public var display: String {
        switch kind {
        case .long(let name, _): "--\(name)"
        case .short(let letter): "-\(letter)"
        case .value(let text): text
        case .terminator: "--"
        }
    }

    /// True for `--help` and `-h`, which every command answers.
    public var isHelpRequest: Bool {
        switch kind {
        case .long("help", nil), .short("h"): true
        default: false
        }
    }
}
