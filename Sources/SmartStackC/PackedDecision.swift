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
    /// The block of `decision`, each widget's reasons when `explained`. The decision is used up:
    /// its texts are read in place through its arrays' buffers (reading the widgets and reasons
    /// as values would retain and release each of their ~50 strings twice).
    ///
    /// - Complexity: O(widgets · reasons).
    static func make(_ decision: consuming RotationDecision, explained: Bool) -> UnsafeMutablePointer<smartstack_decision> {
        var top = decision.top
        let (didRotate, propensity) = (decision.didRotate, decision.propensity)
        var (stack, user, policy) = (decision.ranking.stack, decision.ranking.user, decision.ranking.policy)
        let at = decision.ranking.at
        // In place: a copy of the array would share its buffer, and writing through it would copy it.
        return decision.ranking.widgets.withUnsafeMutableBufferPointer { widgets in
            // Sizes first, so that one allocation holds everything.
            var reasonCount = 0
            var textBytes = stack.utf8.count + user.utf8.count + policy.utf8.count + 3
                + (top.map { $0.utf8.count + 1 } ?? 0)
            for w in widgets.indices {
                textBytes += widgets[w].widget.utf8.count + 1
                guard explained else { continue }
                reasonCount += widgets[w].reasons.count
                widgets[w].reasons.withUnsafeBufferPointer { reasons in
                    for r in reasons.indices { textBytes += reasons[r].text.utf8.count + 1 }
                }
            }
            let widgetsOffset = MemoryLayout<smartstack_decision>.stride
            let reasonsOffset = widgetsOffset + widgets.count * MemoryLayout<smartstack_ranked_widget>.stride
            let textsOffset = reasonsOffset + reasonCount * MemoryLayout<smartstack_reason>.stride
            let size = textsOffset + textBytes
            let block = malloc(size)!
            let packedWidgets = (block + widgetsOffset).bindMemory(to: smartstack_ranked_widget.self, capacity: widgets.count)
            let packedReasons = (block + reasonsOffset).bindMemory(to: smartstack_reason.self, capacity: reasonCount)
            var texts = Texts(next: (block + textsOffset).assumingMemoryBound(to: UInt8.self))

            var head = smartstack_decision()
            head.size = size
            head.stack = texts.copy(&stack)
            head.user = texts.copy(&user)
            head.at_unix_ns = at.nanosecondsSinceEpoch
            head.utc_offset_seconds = at.utcOffsetSeconds
            head.policy = texts.copy(&policy)
            if top != nil { head.top = texts.copy(&top!) } else { head.top = smartstack_text(bytes: nil, length: 0) }
            head.rotated = didRotate ? 1 : 0
            head.propensity = propensity + 0   // -0 becomes 0, as the JSON writes it
            head.widgets = widgets.isEmpty ? nil : UnsafePointer(packedWidgets)
            head.widget_count = widgets.count
            head.reasons = reasonCount == 0 ? nil : UnsafePointer(packedReasons)
            head.reason_count = reasonCount

            var r = 0
            for w in widgets.indices {
                let id = texts.copy(&widgets[w].widget)
                let first = r
                if explained {
                    widgets[w].reasons.withUnsafeMutableBufferPointer { reasons in
                        for k in reasons.indices {
                            let text = texts.copy(&reasons[k].text)
                            (packedReasons + r).initialize(to: smartstack_reason(text: text, contribution: reasons[k].contribution + 0))
                            r += 1
                        }
                    }
                }
                (packedWidgets + w).initialize(to: smartstack_ranked_widget(
                    widget: id, score: widgets[w].score + 0, reasons: r == first ? nil : UnsafePointer(packedReasons + first),
                    reason_count: r - first, eligible: widgets[w].isEligible ? 1 : 0))
            }
            let result = block.bindMemory(to: smartstack_decision.self, capacity: 1)
            result.initialize(to: head)
            return result
        }
    }

    /// Where the next text goes: each is copied, then a NUL.
    private struct Texts {
        var next: UnsafeMutablePointer<UInt8>

        /// `inout` because `withUTF8` on the caller's own storage reads the bytes in place, where
        /// a borrowed string would be retained.
        mutating func copy(_ value: inout String) -> smartstack_text {
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
