package classify

import (
	"math"
	"strings"
	"testing"
)

func TestChi2(t *testing.T) {
	tests := []struct {
		name       string
		a, b, c, d float64
		want       float64
	}{
		{"perfect association", 10, 0, 0, 10, 20},
		{"perfect negative association", 0, 10, 10, 0, 20},
		{"independent", 5, 5, 5, 5, 0},
		{"hand computed", 2, 1, 3, 4, 10 * (8 - 3) * (8 - 3) / float64(5*5*3*7)},
		{"tiny set ball", 2, 0, 0, 1, 3},
		{"tiny set goal", 1, 0, 1, 1, 0.75},
		{"term in every document", 3, 2, 0, 0, 0},
		{"term in no document", 0, 0, 3, 2, 0},
		{"class is everything", 3, 0, 2, 0, 0},
		{"class is empty", 0, 3, 0, 2, 0},
		{"all zero", 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		got := Chi2(tt.a, tt.b, tt.c, tt.d)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Chi2(%v, %v, %v, %v) = %v, want %v", tt.name, tt.a, tt.b, tt.c, tt.d, got, tt.want)
		}
	}
}

func TestOptions_Validate(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		ok   bool
	}{
		{"zero value", Options{}, true},
		{"explicit", Options{K: 50, M: 2.5, Event: EventMultinomial, Threshold: 1}, true},
		{"negative K", Options{K: -1}, false},
		{"negative M", Options{M: -0.5}, false},
		{"NaN M", Options{M: math.NaN()}, false},
		{"infinite M", Options{M: math.Inf(1)}, false},
		{"unknown event", Options{Event: 7}, false},
		{"negative threshold", Options{Threshold: -0.1}, false},
		{"threshold above 1", Options{Threshold: 1.01}, false},
		{"NaN threshold", Options{Threshold: math.NaN()}, false},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	d := Options{}.withDefaults()
	if d.K != DefaultK || d.M != DefaultM || d.Event != EventBinary || d.Threshold != DefaultThreshold {
		t.Errorf("defaults = %+v", d)
	}
}

func TestEvent_MarshalText(t *testing.T) {
	for _, e := range []Event{EventBinary, EventMultinomial} {
		b, err := e.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%v): %v", e, err)
		}
		var got Event
		if err := got.UnmarshalText(b); err != nil || got != e {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", b, got, err, e)
		}
	}
	if b, err := EventMultinomial.MarshalText(); string(b) != "multinomial" || err != nil {
		t.Errorf("MarshalText(multinomial) = %q, %v", b, err)
	}
	if _, err := Event(9).MarshalText(); err == nil {
		t.Error("MarshalText(9) succeeded")
	}
	var e Event
	if err := e.UnmarshalText([]byte("bernoulli")); err == nil {
		t.Error(`UnmarshalText("bernoulli") succeeded`)
	}
	if _, err := ParseEvent("Binary"); err == nil {
		t.Error(`ParseEvent("Binary") succeeded; names are lower-case`)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"course": true, "web_crawling.v2-x": true, "0": true, strings.Repeat("a", 64): true,
		"": false, "Course": false, "_x": false, "a b": false, "cours\u00e9": false, Other: false, strings.Repeat("a", 65): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestNameOf: a label is named by itself lower-cased when that is a
// class name or other, else by a name made of it; every name but other's
// is a class name, and a name names itself.
func TestNameOf(t *testing.T) {
	for label, want := range map[string]string{
		"course": "course", "Course": "course", " Faculty ": "faculty", "other": Other, "Other": Other,
		"Course Pages": "course-pages", "Bad/Label!": "bad-label", "cours\u00e9": "cours", "!!!": "kind",
		"Other!": "other-2", "seed": "seed-2", "Seed": "seed-2", strings.Repeat("Ab ", 40): strings.Repeat("ab-", 21) + "a",
	} {
		got := NameOf(label)
		if got != want {
			t.Errorf("NameOf(%q) = %q, want %q", label, got, want)
		}
		if got != Other && !ValidName(got) {
			t.Errorf("NameOf(%q) = %q, no class name", label, got)
		}
		if again := NameOf(got); again != got {
			t.Errorf("NameOf(%q) = %q, but NameOf(%q) = %q", label, got, got, again)
		}
	}
}
