package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func saved(t testing.TB, m *Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestModel_Save(t *testing.T) {
	for _, event := range []Event{EventBinary, EventMultinomial} {
		m, s := threeClassModel(t, event)
		if err := m.SetThreshold("faculty", 0.9); err != nil {
			t.Fatal(err)
		}
		b := saved(t, m)
		l, err := Load(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%v: Load: %v", event, err)
		}
		if !slices.Equal(l.Classes(), m.Classes()) || l.Options() != m.Options() ||
			l.TrainingHash() != m.TrainingHash() || l.NumTerms() != m.NumTerms() {
			t.Errorf("%v: reloaded model differs: %v %+v %s", event, l.Classes(), l.Options(), l.TrainingHash())
		}
		if l.Threshold("faculty") != 0.9 || l.Threshold("course") != DefaultThreshold {
			t.Errorf("%v: thresholds not kept: %v %v", event, l.Threshold("faculty"), l.Threshold("course"))
		}
		if !slices.Equal(l.Top("course", 50), m.Top("course", 50)) {
			t.Errorf("%v: Top differs after reload", event)
		}
		for i := range 50 {
			d := s.doc(m.Classes()[i%3], 30+i*10).Tokens
			if a, b := m.Posterior(d, nil), l.Posterior(d, nil); !slices.Equal(a, b) {
				t.Fatalf("%v: posterior %v after reload, %v before", event, b, a)
			}
		}
		if again := saved(t, l); !bytes.Equal(again, b) {
			t.Errorf("%v: Save(Load(Save(m))) differs from Save(m)", event)
		}
	}
	// The file is indented and starts with its identification.
	m, err := Train(tinySet(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := string(saved(t, m))
	for _, want := range []string{"{\n  \"format\": \"scent-model\",\n  \"version\": 1,", `"event": "binary"`, `"term": "ball"`, `"training_hash": "` + m.TrainingHash() + `"`} {
		if !strings.Contains(b, want) {
			t.Errorf("model file lacks %q:\n%s", want, b)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestModel_Save_writeError(t *testing.T) {
	m, err := Train(tinySet(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(failWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Save to a failing writer: %v", err)
	}
}

// edit decodes a saved model into generic JSON, applies change and
// re-encodes it.
func edit(t *testing.T, b []byte, change func(f map[string]any)) []byte {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	change(f)
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoad_errors(t *testing.T) {
	m, err := Train(tinySet(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	good := saved(t, m)
	class := func(f map[string]any, i int) map[string]any { return f["classes"].([]any)[i].(map[string]any) }
	term := func(f map[string]any, i int) map[string]any { return f["terms"].([]any)[i].(map[string]any) }
	tests := []struct {
		name    string
		in      []byte
		message string
	}{
		{"empty", nil, "not a JSON object"},
		{"not JSON", []byte("<html>"), "not a JSON object"},
		{"JSON array", []byte("[1,2]"), "not a JSON object"},
		{"trailing data", append(slices.Clone(good), "{}"...), "not a JSON object"},
		{"no format", []byte(`{"version":1}`), `no "format" field`},
		{"wrong format", edit(t, good, func(f map[string]any) { f["format"] = "word2vec" }), `format is "word2vec"`},
		{"no version", edit(t, good, func(f map[string]any) { delete(f, "version") }), `no "version" field`},
		{"version not a number", edit(t, good, func(f map[string]any) { f["version"] = "1" }), "want an integer"},
		{"unknown field", edit(t, good, func(f map[string]any) { f["extra"] = 1 }), "unknown field"},
		{"bad event", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["event"] = "poisson" }), `unknown event model "poisson"`},
		{"k zero", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["k"] = 0 }), "k is 0"},
		{"m negative", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["m"] = -1 }), "m is -1"},
		{"default threshold", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["threshold"] = 2 }), "threshold 2 is outside"},
		{"prior mix 1", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["prior_mix"] = 1 }), "prior_mix 1 is outside"},
		{"negative prior mix", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["prior_mix"] = -0.1 }), "prior_mix -0.1 is outside"},
		{"absent discount above 1", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["absent_discount"] = 1.5 }), "absent_discount 1.5 is outside"},
		{"negative absent discount", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["absent_discount"] = -0.5 }), "absent_discount -0.5 is outside"},
		{"one class", edit(t, good, func(f map[string]any) { f["classes"] = f["classes"].([]any)[:1] }), "1 classes, need at least 2"},
		{"duplicate class", edit(t, good, func(f map[string]any) { class(f, 1)["name"] = "sport" }), `class "sport" appears twice`},
		{"unnamed class", edit(t, good, func(f map[string]any) { class(f, 0)["name"] = "" }), "class 0 has no name"},
		{"negative prior", edit(t, good, func(f map[string]any) { class(f, 0)["prior"] = -0.1 }), "prior -0.1 is outside"},
		{"zero prior, priors do not sum to 1", edit(t, good, func(f map[string]any) { class(f, 0)["prior"] = 0 }), "priors sum to"},
		{"priors do not sum to 1", edit(t, good, func(f map[string]any) { class(f, 0)["prior"] = 0.5 }), "priors sum to"},
		{"no documents", edit(t, good, func(f map[string]any) { class(f, 1)["documents"] = 0 }), "0 training documents"},
		{"class threshold", edit(t, good, func(f map[string]any) { class(f, 1)["threshold"] = 0 }), `class "other": threshold 0`},
		{"too many terms", edit(t, good, func(f map[string]any) { f["params"].(map[string]any)["k"] = 2 }), "3 terms, more than k = 2"},
		{"duplicate term", edit(t, good, func(f map[string]any) { term(f, 2)["term"] = "ball" }), `term "ball" appears twice`},
		{"empty term", edit(t, good, func(f map[string]any) { term(f, 1)["term"] = "" }), "a term is empty"},
		{"theta zero", edit(t, good, func(f map[string]any) { term(f, 0)["theta"] = []any{0, 0.5} }), `theta of class "sport" is 0, outside (0, 1)`},
		{"theta one", edit(t, good, func(f map[string]any) { term(f, 0)["theta"] = []any{0.5, 1} }), `theta of class "other" is 1`},
		{"theta length", edit(t, good, func(f map[string]any) { term(f, 0)["theta"] = []any{0.5} }), "1 theta values for 2 classes"},
		{"chi2 length", edit(t, good, func(f map[string]any) { term(f, 0)["chi2"] = []any{1, 2, 3} }), "3 chi2 values for 2 classes"},
		{"negative chi2", edit(t, good, func(f map[string]any) { term(f, 0)["chi2"] = []any{-1, 2} }), "chi2 of class"},
		{"negative chi2max", edit(t, good, func(f map[string]any) { term(f, 0)["chi2max"] = -1 }), "chi2max -1"},
		{"df too large", edit(t, good, func(f map[string]any) { term(f, 0)["df"] = 4 }), "df 4 is outside 1..3"},
		{"bad hash", edit(t, good, func(f map[string]any) { f["training_hash"] = "abc" }), "not 64 hex digits"},
		{"wrong type", edit(t, good, func(f map[string]any) { f["terms"] = "many" }), "cannot unmarshal"},
	}
	for _, tt := range tests {
		_, err := Load(bytes.NewReader(tt.in))
		if err == nil {
			t.Errorf("%s: Load succeeded", tt.name)
			continue
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v does not wrap ErrFormat", tt.name, err)
		}
		if !strings.Contains(err.Error(), tt.message) {
			t.Errorf("%s: error %q does not say %q", tt.name, err, tt.message)
		}
	}

	// Another version is refused before its layout is read.
	future := []byte(`{"format":"scent-model","version":2,"terms":{"layout":"new"}}`)
	_, err = Load(bytes.NewReader(future))
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Version != 2 {
		t.Fatalf("version 2: %v", err)
	}
	if want := "load model: model file has version 2; this scent reads version 1"; err.Error() != want {
		t.Errorf("version 2: %q, want %q", err, want)
	}
}

func FuzzLoad(f *testing.F) {
	m, err := Train(tinySet(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.String()
	f.Add(good)
	f.Add(strings.Replace(good, `"version": 1`, `"version": 7`, 1))
	f.Add(strings.Replace(good, `0.`, `1.`, 3))
	f.Add(`{"format":"scent-model","version":1}`)
	f.Add(`{}`)
	f.Add(`null`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Load(strings.NewReader(s))
		if err != nil {
			return
		}
		// A model that loads must score and survive another round trip.
		toks := make([]string, 0, m.NumTerms())
		for _, f := range m.Top(m.Classes()[0], m.NumTerms()) {
			toks = append(toks, f.Term)
		}
		post := m.Posterior(toks, nil)
		checkDistribution(t, "loaded", post)
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatalf("Save of a loaded model: %v", err)
		}
		l, err := Load(&buf)
		if err != nil {
			t.Fatalf("reload: %v", err)
		}
		if again := l.Posterior(toks, nil); !slices.Equal(post, again) {
			t.Fatalf("posterior %v after reload, %v before", again, post)
		}
	})
}

func TestModel_Meta_roundTrip(t *testing.T) {
	m, err := Train([]Example{{Class: "a", Tokens: []string{"x"}}, {Class: Other, Tokens: []string{"y"}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.SetMeta("documents", "windows")
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta("documents") != "windows" || got.Meta("absent") != "" {
		t.Errorf("meta after load: %q %q", got.Meta("documents"), got.Meta("absent"))
	}
}
