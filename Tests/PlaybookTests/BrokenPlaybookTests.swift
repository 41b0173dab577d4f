import Foundation
import TestSupport
import Testing

@testable import Playbook

/// Every file in Tests/Fixtures/playbooks/broken has a sidecar `.expected` listing the exact
/// `file:line:col: error: message` lines validation must produce, in order. To write or review one,
/// `walletops validate FILE` prints the same lines (run from the folder, so `file` is the bare name), and a
/// mismatch here prints what validation reported.
@Suite struct BrokenPlaybookTests {
    static let directory = Fixtures.url("playbooks/broken")

    static func cases() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted()
    }

    static func actual(_ name: String) throws -> [String] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        let result = Playbook.validate(text, file: name)
        #expect(!result.isValid, "\(name) should be rejected")
        return result.diagnostics.map(\.description)
    }

    @Test func everyBrokenPlaybookReportsExactlyItsExpectedErrors() throws {
        var tally = VectorTally("playbooks/broken")
        for name in try Self.cases() {
            let expectedURL = Self.directory.appendingPathComponent(
                String(name.dropLast(".yaml".count)) + ".expected")
            let expected = try String(contentsOf: expectedURL, encoding: .utf8)
                .split(separator: "\n").map(String.init)
            let actual = try Self.actual(name)
            #expect(actual == expected, "\(name) reports:\n\(actual.joined(separator: "\n"))")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran >= 30)
        let sidecars = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".expected") }
        #expect(sidecars.count == tally.ran, "every .expected file has its .yaml")
    }

    @Test func allErrorsAreReportedAtOnce() throws {
        #expect(try Self.actual("many-errors.yaml").count >= 5)
    }
}
