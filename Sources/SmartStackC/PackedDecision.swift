import CSmartStack
import SmartStack

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(Darwin)
import Darwin
#endif

/// A decision as `smartstack_decide_packed` returns it: one `malloc` block holding the
/// `smartstack_decision`, its widgets, their reasons and the texts, laid out as
/// include/smartstack.h describes (`smartstack_free_decision` releases it with `free`).
enum PackedDecision {
    /// The block of `decision`, each widget's reasons when `explained`.
    ///
    /// - Complexity: O(widgets · reasons).
    static func make(_ decision: borrowing RotationDecision, explained: Bool) -> UnsafeMutablePointer<smartstack_decision> {
        let ranking = decision.ranking
        // Sizes first, so that one allocation holds everything.
        var reasonCount = 0
        var textBytes = ranking.stack.utf8.count + ranking.user.utf8.count + ranking.policy.utf8.count + 3
        if let top = decision.top { textBytes += top.utf8.count + 1 }
        for widget in ranking.widgets {
            textBytes += widget.widget.utf8.count + 1
            guard explained else { continue }
            reasonCount += widget.reasons.count
            for reason in widget.reasons { textBytes += reason.text.utf8.count + 1 }
        }
        let widgetsOffset = MemoryLayout<smartstack_decision>.stride
        let reasonsOffset = widgetsOffset + ranking.widgets.count * MemoryLayout<smartstack_ranked_widget>.stride
        let textsOffset = reasonsOffset + reasonCount * MemoryLayout<smartstack_reason>.stride
        let size = textsOffset + textBytes
        let block = malloc(size)!
        let widgets = (block + widgetsOffset).bindMemory(to: smartstack_ranked_widget.self, capacity: ranking.widgets.count)
        let reasons = (block + reasonsOffset).bindMemory(to: smartstack_reason.self, capacity: reasonCount)
        var texts = Texts(next: (block + textsOffset).assumingMemoryBound(to: UInt8.self))

        var head = smartstack_decision()
        head.size = size
        head.stack = texts.copy(ranking.stack)
        head.user = texts.copy(ranking.user)
        head.at_unix_ns = ranking.at.nanosecondsSinceEpoch
        head.utc_offset_seconds = ranking.at.utcOffsetSeconds
        head.policy = texts.copy(ranking.policy)
        head.top = decision.top.map { texts.copy($0) } ?? smartstack_text(bytes: nil, length: 0)
        head.rotated = decision.didRotate ? 1 : 0
        head.propensity = decision.propensity + 0   // -0 becomes 0, as the JSON writes it
        head.widgets = ranking.widgets.isEmpty ? nil : UnsafePointer(widgets)
        head.widget_count = ranking.widgets.count
        head.reasons = reasonCount == 0 ? nil : UnsafePointer(reasons)
        head.reason_count = reasonCount

        var r = 0
        for (w, widget) in ranking.widgets.enumerated() {
            let id = texts.copy(widget.widget)
            let first = r
            if explained {
                for reason in widget.reasons {
                    (reasons + r).initialize(to: smartstack_reason(text: texts.copy(reason.text), contribution: reason.contribution + 0))
                    r += 1
                }
            }
            (widgets + w).initialize(to: smartstack_ranked_widget(
                widget: id, score: widget.score + 0, reasons: r == first ? nil : UnsafePointer(reasons + first),
                reason_count: r - first, eligible: widget.isEligible ? 1 : 0))
        }
        let result = block.bindMemory(to: smartstack_decision.self, capacity: 1)
        result.initialize(to: head)
        return result
    }

    /// Where the next text goes: each is copied, then a NUL.
    private struct Texts {
        var next: UnsafeMutablePointer<UInt8>

        mutating func copy(_ value: String) -> smartstack_text {
            var value = value
            let length = value.withUTF8 { bytes in
                if let base = bytes.baseAddress { memcpy(next, base, bytes.count) }
                return bytes.count
            }
            next[length] = 0
            let text = smartstack_text(bytes: UnsafeRawPointer(next).assumingMemoryBound(to: CChar.self), length: length)
            next += length + 1
            return text
        }
    }
}
