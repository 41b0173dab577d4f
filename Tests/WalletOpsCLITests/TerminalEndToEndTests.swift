import Foundation
import Testing

/// `walletops run` on a real pseudo-terminal (python3's `pty`): the live line is a bar with rows, percent,
/// rate and ETA, and Ctrl-C typed on the terminal (the line discipline's SIGINT) leaves its notice on the
/// screen, where it used to be erased by the next redraw.
@Suite(.serialized) struct TerminalEndToEndTests {
    /// Runs `binary arguments` in `directory` on a pseudo-terminal of 24 x `columns`; once its output holds
    /// `trigger`, types Ctrl-C. Prints what the terminal received (base64) and exits with the child's status.
    static let driver = """
        import base64, os, pty, select, struct, sys, fcntl, termios, time
        columns, trigger, directory = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
        pid, master = pty.fork()
        if pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
            os.chdir(directory)
            os.execv(sys.argv[4], sys.argv[4:])
        seen, typed, deadline = b"", False, time.time() + 120
        while time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            if not typed and trigger in seen:
                os.write(master, b"\\x03")
                typed = True
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(base64.b64encode(seen).decode())
        sys.exit(os.waitstatus_to_exitcode(status) if typed else 99)
        """

    /// What a terminal shows after `bytes`: printable text, CR, LF, and the escapes the display uses
    /// (`ESC[nA` up, `ESC[2K` clear the line, `ESC[J` clear to the end of the screen).
    static func screen(_ bytes: [UInt8]) -> [String] {
        var lines: [[Character]] = [[]]
        var row = 0
        var column = 0
        var index = 0
        let text = Array(String(decoding: bytes, as: UTF8.self))
        func put(_ character: Character) {
            while lines[row].count < column { lines[row].append(" ") }
            if column < lines[row].count { lines[row][column] = character } else { lines[row].append(character) }
            column += 1
        }
        while index < text.count {
            let character = text[index]
            index += 1
            switch character {
            case "\r": column = 0
            case "\n", "\r\n":
                if character == "\r\n" { column = 0 }
                row += 1
                if row == lines.count { lines.append([]) }
            case "\u{1B}":
                guard index < text.count, text[index] == "[" else { continue }
                index += 1
                var number = ""
                while index < text.count, text[index].isNumber {
                    number.append(text[index])
                    index += 1
                }
                guard index < text.count else { break }
                let command = text[index]
                index += 1
                switch command {
                case "A": row = max(0, row - (Int(number) ?? 1))
                case "K": lines[row] = []
                case "J":
                    lines[row] = Array(lines[row].prefix(column))
                    lines.removeSubrange((row + 1)...)
                default: break
                }
            default: put(character)
            }
        }
        return lines.map { String($0) }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func ctrlCOnATerminalLeavesItsNoticeAndTheLiveLineIsABar() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 400)
        try space.write("live.yaml", RunCommandEndToEndTests.napPlaybook(name: "live", duration: "20ms"))
        let binary = try BuiltBinary.url().path
        // Ctrl-C once the bar has moved (a row done): the run is under way.
        let result = try space.run(
            ["-c", Self.driver, "100", "#", space.directory.path, binary, "run", "live.yaml"],
            executable: "/usr/bin/python3")
        #expect(result.status == 75, "interrupted: \(result.standardError)")
        let bytes = try #require(
            Data(base64Encoded: result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        let raw = String(decoding: bytes, as: UTF8.self)
        // The live line: a bar, rows of the total, percent, rate and ETA, never as wide as the terminal.
        let live = raw.components(separatedBy: "\u{1B}[2K").dropFirst().map { $0.prefix { !$0.isNewline } }
        // (A redraw between two rows may show no rate yet, so no ETA: some line has them all.)
        let pattern = #"^nap \[#+-*\] \d+/400 \d+\.\d% [1-9]\d*/s ETA (\d+m)?\d+s, 0 failed, 0 rejected$"#
        #expect(live.contains { $0.range(of: pattern, options: .regularExpression) != nil }, "\(live)")
        #expect(live.allSatisfy { $0.count < 100 }, "\(live)")
        // What the screen shows at the end: the notice, above the summary the run printed after it.
        let screen = Self.screen(Array(bytes))
        let notice = try #require(
            screen.firstIndex { $0.hasPrefix("received SIGINT: stopping; in-flight items have 10s to finish") },
            "the notice is not on the screen:\n\(screen.joined(separator: "\n"))")
        let summary = try #require(screen.firstIndex { $0.hasPrefix("run 1 of 'live' interrupted") }, "\(screen)")
        #expect(notice < summary)
        #expect(screen.contains { $0.hasPrefix("  walletops run live.yaml") }, "the resume command: \(screen)")
        #expect(!screen.contains { $0.hasPrefix("nap [") }, "the live line is cleared at the end: \(screen)")
    }
}
