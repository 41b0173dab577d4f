import Testing

@testable import TextFormats

@Suite struct CodedErrorTests {
    /// An error of the usual shape: a code and a message, nothing else stated.
    struct Plain: CodedError {
        enum Code { case missing, malformed }
        let code: Code
        let message: String
    }

    /// An error whose text names its code too.
    struct Prefixed: CodedError {
        let code: Int
        let message: String
        var description: String { "error \(code): \(message)" }
    }

    @Test func errorsAreEqualAndHashAlikeByCodeWhateverTheMessage() {
        let one = Plain(code: .missing, message: "row 3: no key")
        let other = Plain(code: .missing, message: "row 9: no key column")
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(Set([one, other]).count == 1)
        #expect(one != Plain(code: .malformed, message: "row 3: no key"))
        #expect(Set([one, Plain(code: .malformed, message: "")]).count == 2)
    }

    @Test func theDescriptionIsTheMessageUnlessTheTypeStatesItsOwn() {
        #expect(Plain(code: .missing, message: "row 3: no key").description == "row 3: no key")
        #expect("\(Plain(code: .malformed, message: "line 2, column 5"))" == "line 2, column 5")
        #expect(Prefixed(code: 5, message: "database is locked").description == "error 5: database is locked")
    }
}
