import Foundation
import Testing

/// `walletops completion bash`: the generated script, sourced by a real bash, completes commands,
/// options, an option's choices and playbook files.
@Suite struct CompletionEndToEndTests {
    @Test func bashCompletesCommandsOptionsChoicesAndPlaybooks() throws {
        let space = try PlaybookWorkspace()
        try space.write("nightly.yaml", "name: n\nsteps:\n  - {id: a, action: noop}\n")
        try space.write("notes.txt", "")
        let script = try space.run(["completion", "bash"])
        #expect(script.status == 0, "\(script)")
        try space.write("completion.bash", script.standardOutput)
        try space.write(
            "probe.sh",
            """
            source ./completion.bash
            t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _walletops; echo "${COMPREPLY[*]}"; }
            t walletops ru
            t walletops run --fr
            t walletops status 1 --format ""
            t walletops run ""
            t walletops run nightly.yaml --var x=1 --sto

            """)
        let probe = try space.run(["probe.sh"], executable: "/bin/bash")
        #expect(probe.status == 0, "\(probe)")
        let lines = probe.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= 5, "\(probe)")
        guard lines.count >= 5 else { return }
        #expect(lines[0] == "run runs")
        #expect(lines[1] == "--fresh")
        #expect(lines[2] == "table json")
        #expect(lines[3] == "nightly.yaml", "playbooks only: \(lines[3])")
        #expect(lines[4] == "--store")
        let bad = try space.run(["completion", "fish"])
        #expect(bad.status == 64 && bad.standardError.contains("use bash or zsh"), "\(bad)")
    }
}
