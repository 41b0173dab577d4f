import Foundation

extension UsageReport {
    /// One self-contained HTML file (no script, font or style from elsewhere: it opens offline): an SVG
    /// bar chart of used against limit per session grant, sortable tables (inline script), summaries.
    public var html: String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Remote session usage</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:2em;color:#222}
            table{border-collapse:collapse;margin:1em 0;font-size:12px}
            th,td{border:1px solid #ccc;padding:3px 6px;text-align:left}
            th{background:#eef;cursor:pointer;user-select:none}
            tr.near td{background:#fff3e0}
            .bar-used{fill:#e65100}.bar-limit{fill:#cfd8dc}
            svg text{font-size:11px;font-family:monospace}
            </style></head><body>
            <h1>Remote session usage</h1>
            <p class="period">\(Self.escape(periodLine))</p>
            <p>Generated \(Self.escape(Self.time(generatedAt))). Near limit: \(nearLimit)%.
            \(rows.count) grants in \(Set(rows.map(\.sessionId)).count) sessions.</p>

            """
        page += "<h2>Used against limit</h2>\n" + chart
        page +=
            "<h2>Sessions and grants</h2>\n"
            + Self.table(
                id: "grants", header: Self.header, rows: rows.map(\.values),
                near: rows.map(isNearLimit))
        for section in summarySections {
            page +=
                "<h2>\(section.title)</h2>\n" + Self.table(id: section.id, header: section.header, rows: section.rows)
        }
        page +=
            "<h2>At or over \(nearLimit)%</h2>\n"
            + Self.table(id: "near", header: Self.header, rows: nearLimitRows.map(\.values))
        page += """
            <script>
            // Click a header to sort its column (numbers as numbers, exact integers by length then text).
            document.querySelectorAll('table.sortable').forEach(function (table) {
              table.querySelectorAll('th').forEach(function (th, column) {
                th.addEventListener('click', function () {
                  var body = table.tBodies[0];
                  var rows = Array.prototype.slice.call(body.rows);
                  var up = th.getAttribute('data-up') !== '1';
                  th.setAttribute('data-up', up ? '1' : '0');
                  rows.sort(function (a, b) {
                    var x = a.cells[column].textContent, y = b.cells[column].textContent;
                    var numeric = /^[0-9]+(\\.[0-9]+)?$/;
                    var order;
                    if (numeric.test(x) && numeric.test(y)) {
                      var xi = x.split('.')[0], yi = y.split('.')[0];
                      order = xi.length !== yi.length ? xi.length - yi.length : (x < y ? -1 : x > y ? 1 : 0);
                    } else {
                      order = x.localeCompare(y);
                    }
                    return up ? order : -order;
                  });
                  rows.forEach(function (row) { body.appendChild(row); });
                });
              });
            });
            </script>
            </body></html>

            """
        return page
    }

    /// Horizontal bars: the limit in grey, the used share over it, one per session grant.
    var chart: String {
        let barWidth = 400.0
        let rowHeight = 22.0
        let height = max(1, Double(rows.count)) * rowHeight + 10
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"\(Int(height))\" role=\"img\" aria-label=\"used against limit per session\">\n"
        for (index, row) in rows.enumerated() {
            let y = Double(index) * rowHeight + 5
            let percent = min(100, Double(row.percentUsed) ?? 0)
            let label = "\(row.appName) \(row.sessionId.prefix(12)) \(row.grantKind)"
            svg += "<text x=\"0\" y=\"\(y + 14)\">\(Self.escape(String(label.prefix(48))))</text>"
            svg += "<rect class=\"bar-limit\" x=\"380\" y=\"\(y)\" width=\"\(barWidth)\" height=\"16\"/>"
            svg +=
                "<rect class=\"bar-used\" x=\"380\" y=\"\(y)\" width=\"\(String(format: "%.1f", barWidth * percent / 100))\" height=\"16\"><title>\(Self.escape(row.used)) of \(Self.escape(row.limit))</title></rect>"
            svg +=
                "<text x=\"790\" y=\"\(y + 14)\">\(Self.escape(row.percentUsed.isEmpty ? "-" : row.percentUsed + "%"))</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func table(id: String, header: [String], rows: [[String]], near: [Bool] = []) -> String {
        var text = "<table class=\"sortable\" id=\"\(id)\"><thead><tr>"
        text += header.map { "<th>\(escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for (index, row) in rows.enumerated() {
            let isNear = index < near.count && near[index]
            text +=
                (isNear ? "<tr class=\"near\">" : "<tr>") + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        return text + "</tbody></table>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
