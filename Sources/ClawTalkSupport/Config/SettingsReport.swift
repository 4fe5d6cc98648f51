/// The effective settings as aligned `key = value   (source)` lines, for `clawtalk doctor`.
/// Secrets show as `<set, redacted>` or `<unset>`; other unset values as `<unset>`.
public enum SettingsReport {
    /// One line per setting, in table order.
    public static func lines(_ effective: EffectiveSettings) -> [String] {
        let rows = rows(effective)
        let keyWidth = rows.map(\.key.count).max() ?? 0
        let valueWidth = rows.map(\.value.count).max() ?? 0
        return rows.map { row in
            pad(row.key, keyWidth) + " = " + pad(row.value, valueWidth) + "   (\(row.source))"
        }
    }

    /// Every setting as displayed text: key, value with unit (secrets redacted) and source.
    public static func rows(_ effective: EffectiveSettings) -> [(key: String, value: String, source: String)] {
        SettingDescriptor.all.map { descriptor in
            let value = descriptor.value(in: effective.settings)
            let shown = value.isNull ? "<unset>" : descriptor.display(value)
            let unit = descriptor.unit.map { value.isNull ? "" : " \($0)" } ?? ""
            return (descriptor.key, shown + unit, effective.source(of: descriptor.key).description)
        }
    }

    /// All lines joined with newlines (with a trailing newline).
    public static func render(_ effective: EffectiveSettings) -> String {
        lines(effective).joined(separator: "\n") + "\n"
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
