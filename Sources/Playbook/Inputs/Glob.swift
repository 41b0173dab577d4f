/// A file-name glob: `*` (any run of characters), `?` (one character), `[abc]`, `[a-z]`, `[!abc]`,
/// and `\` to escape. Matches whole names; `/` is not special because names have none.
public struct Glob: Sendable, Hashable {
    /// The pattern as written.
    public let pattern: String
    private let chars: [Character]

    /// Creates a glob.
    public init(_ pattern: String) {
        self.pattern = pattern
        chars = Array(pattern)
    }

    /// Whether `name` matches the whole pattern.
    public func matches(_ name: String) -> Bool {
        let text = Array(name)
        var p = 0
        var t = 0
        var star: Int?
        var starText = 0
        while t < text.count {
            if p < chars.count, chars[p] == "*" {
                star = p
                starText = t
                p += 1
            } else if p < chars.count, let next = matchOne(at: p, text[t]) {
                p = next
                t += 1
            } else if let s = star {
                // Backtrack: let the last `*` swallow one more character.
                p = s + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < chars.count, chars[p] == "*" { p += 1 }
        return p == chars.count
    }

    /// If the pattern element at `p` matches `c`, the index after the element.
    private func matchOne(at p: Int, _ c: Character) -> Int? {
        switch chars[p] {
        case "?": return p + 1
        case "\\" where p + 1 < chars.count: return chars[p + 1] == c ? p + 2 : nil
        case "[":
            var i = p + 1
            var negate = false
            if i < chars.count, chars[i] == "!" || chars[i] == "^" {
                negate = true
                i += 1
            }
            var matched = false
            var first = true
            while i < chars.count, chars[i] != "]" || first {
                first = false
                if i + 2 < chars.count, chars[i + 1] == "-", chars[i + 2] != "]" {
                    if chars[i] <= c && c <= chars[i + 2] { matched = true }
                    i += 3
                } else {
                    if chars[i] == c { matched = true }
                    i += 1
                }
            }
            guard i < chars.count else { return chars[p] == c ? p + 1 : nil }  // no closing `]`: literal
            return matched != negate ? i + 1 : nil
        default: return chars[p] == c ? p + 1 : nil
        }
    }
}
