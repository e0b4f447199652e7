package org.smartstack;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the rotation policy shows on top of a stack at a decision point, and the ranking (top
 * first) it came from, each widget with its reasons. Read from the JSON of smartstack_decide.
 */
public final class Decision {
    /** One reason for a widget's score: a phrase in the person's local time and its contribution. */
    public static final class Reason {
        public final String text;
        public final double contribution;

        Reason(String text, double contribution) {
            this.text = text;
            this.contribution = contribution;
        }
    }

    /** One ranked widget; {@code score} is NaN when the engine's score is not finite. */
    public static final class Widget {
        public final String widget;
        public final double score;
        public final boolean eligible;
        public final List<Reason> reasons;

        Widget(String widget, double score, boolean eligible, List<Reason> reasons) {
            this.widget = widget;
            this.score = score;
            this.eligible = eligible;
            this.reasons = reasons;
        }
    }

    public final String stack;
    public final String user;
    /** The instant, RFC 3339 with the offset given. */
    public final String at;
    public final String policy;
    /** The widget on top, {@code null} when none is eligible. */
    public final String top;
    public final boolean rotated;
    public final double propensity;
    public final List<Widget> ranking;

    private Decision(Map<String, Object> json) {
        stack = (String) json.get("stack");
        user = (String) json.get("user");
        at = (String) json.get("at");
        policy = (String) json.get("policy");
        top = (String) json.get("top");
        rotated = (Boolean) json.get("rotated");
        propensity = (Double) json.get("propensity");
        List<Widget> widgets = new ArrayList<>();
        for (Object item : (List<?>) json.get("ranking")) {
            Map<?, ?> w = (Map<?, ?>) item;
            List<Reason> reasons = new ArrayList<>();
            Object rawReasons = w.get("reasons");
            if (rawReasons != null) {
                for (Object r : (List<?>) rawReasons) {
                    Map<?, ?> reason = (Map<?, ?>) r;
                    reasons.add(new Reason((String) reason.get("text"), (Double) reason.get("contribution")));
                }
            }
            Object score = w.get("score");
            widgets.add(new Widget((String) w.get("widget"), score == null ? Double.NaN : (Double) score,
                                   (Boolean) w.get("eligible"), Collections.unmodifiableList(reasons)));
        }
        ranking = Collections.unmodifiableList(widgets);
    }

    /** The decision in the JSON {@code smartstack_decide} returns. */
    @SuppressWarnings("unchecked")
    static Decision fromJson(String json) {
        return new Decision((Map<String, Object>) Json.parse(json));
    }
}
