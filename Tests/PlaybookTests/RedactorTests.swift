import Foundation
import Testing

@testable import Playbook

@Suite struct RedactorTests {
    @Test func replacesEverySecretOccurrence() {
        let redactor = Redactor(secrets: ["hunter2", "abc", "", "hunter2-long"])
        #expect(redactor.redact("pw=hunter2 again hunter2") == "pw=*** again ***")
        #expect(redactor.redact("key hunter2-long and abc") == "key *** and ***")
        #expect(redactor.redact("nothing here") == "nothing here")
        #expect(Redactor(secrets: []).redact("hunter2") == "hunter2")
    }

    @Test func secretValuesNeverPrint() {
        let secret = SecretValue("hunter2")
        #expect("\(secret)" == "***")
        #expect(String(reflecting: secret) == "SecretValue(***)")
        #expect(!"\(["k": secret])".contains("hunter2"))
        var dumped = ""
        dump(TemplateContext(secrets: ["k": secret]), to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(!"\(TemplateContext(secrets: ["k": secret]))".contains("hunter2"))
    }

    @Test func loadsSecretsFromEnvAndFiles() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kek-\(UUID().uuidString)")
        try Data("file-secret\r\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let playbook = try Playbook.parse(
            """
            name: s
            vars:
              kek_path: {type: path}
            secrets:
              token: {env: OMS_TOKEN}
              kek: {file: "${{ vars.kek_path }}"}
              optional: {env: NOT_SET_ANYWHERE, required: false}
            steps:
              - id: a
                action: x
                with: {auth: "${{ secrets.token }}", kek: "${{ secrets.kek }}"}
            """, file: "s.yaml")
        let vars: [String: TemplateValue] = ["kek_path": .string(file.path)]
        let secrets = try playbook.loadSecrets(environment: ["OMS_TOKEN": "env-secret"], vars: vars)
        #expect(secrets["token"]?.reveal == "env-secret")
        #expect(secrets["kek"]?.reveal == "file-secret")
        #expect(secrets["optional"] == nil)
        let redactor = Redactor(secrets)
        #expect(redactor.redact("failed with env-secret / file-secret") == "failed with *** / ***")

        let error = #expect(throws: Playbook.SecretError.self) {
            try playbook.loadSecrets(environment: [:], vars: ["kek_path": .string("/nonexistent/kek")])
        }
        #expect(
            error?.problems == [
                "secret 'kek': cannot read file /nonexistent/kek",
                "secret 'token': environment variable OMS_TOKEN is not set",
            ])
    }
}
