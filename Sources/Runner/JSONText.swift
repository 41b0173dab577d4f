import Foundation
import TextFormats

/// Minimal JSON for flat string maps: sorted keys, so equal maps give equal text (used in identities).
enum JSONText {
    static func object(_ map: [String: String]) -> String {
        var out = "{"
        for (offset, key) in map.keys.sorted().enumerated() {
            if offset > 0 { out += "," }
            JSONString.append(key, to: &out)
            out += ":"
            JSONString.append(map[key]!, to: &out)
        }
        out += "}"
        return out
    }

    static func parseObject(_ text: String) -> [String: String] {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object.compactMapValues { $0 as? String }
    }
}
