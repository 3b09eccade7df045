package minhash

import (
	"errors"
	"testing"
)

func TestParams_MarshalText(t *testing.T) {
	tests := []struct {
		p    Params
		want string
	}{
		{DefaultParams(), "minhash/1 w=8 seed=0x5ce17c4a11d5eed1"},
		{Params{}, "minhash/1 w=8 seed=0x0000000000000000"},
		{Params{ShingleWords: 5, Seed: 42}, "minhash/1 w=5 seed=0x000000000000002a"},
	}
	for _, tt := range tests {
		b, err := tt.p.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%+v): %v", tt.p, err)
		}
		if string(b) != tt.want {
			t.Errorf("MarshalText(%+v) = %q, want %q", tt.p, b, tt.want)
		}
		var back Params
		if err := back.UnmarshalText(b); err != nil {
			t.Fatalf("UnmarshalText(%q): %v", b, err)
		}
		if back != tt.p.resolved() {
			t.Errorf("UnmarshalText(%q) = %+v, want %+v", b, back, tt.p.resolved())
		}
	}
	if _, err := (Params{ShingleWords: -3}).MarshalText(); !errors.Is(err, ErrParams) {
		t.Errorf("MarshalText of w=-3 = %v, want ErrParams", err)
	}
}

func TestParams_UnmarshalText_errors(t *testing.T) {
	for _, text := range []string{
		"",
		"minhash/1 w=8",
		"minhash/2 w=8 seed=0x1",
		"minhash/1 w=0 seed=0x1",
		"minhash/1 w=65 seed=0x1",
		"minhash/1 w=x seed=0x1",
		"minhash/1 k=8 seed=0x1",
		"minhash/1 w=8 seed=0x1ffffffffffffffff",
		"minhash/1 w=8 s=1",
		"minhash/1 w=8 seed=1 extra",
	} {
		p := DefaultParams()
		err := p.UnmarshalText([]byte(text))
		if !errors.Is(err, ErrParams) {
			t.Errorf("UnmarshalText(%q) = %v, want ErrParams", text, err)
		}
		if p != DefaultParams() {
			t.Errorf("failed UnmarshalText(%q) changed the params", text)
		}
	}
}

func FuzzParams_UnmarshalText(f *testing.F) {
	for _, s := range []string{"minhash/1 w=8 seed=0x5ce17c4a11d5eed1", "minhash/1 w=1 seed=0", "minhash/1 w=64 seed=077", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var p Params
		if err := p.UnmarshalText([]byte(text)); err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded invalid params %+v: %v", p, err)
		}
		b, err := p.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%+v): %v", p, err)
		}
		var again Params
		if err := again.UnmarshalText(b); err != nil || again != p {
			t.Fatalf("%q → %+v → %q → %+v, %v", text, p, b, again, err)
		}
		if _, err := NewSigner(p); err != nil {
			t.Fatalf("NewSigner(%+v): %v", p, err)
		}
	})
}

func TestStored(t *testing.T) {
	def := DefaultParams()
	five := Params{ShingleWords: 5, Seed: 42}
	fiveText := "minhash/1 w=5 seed=0x000000000000002a"
	for _, tc := range []struct {
		name   string
		stored string
		p      *Params
		use    Params
		record string
		err    bool // it fails, with ErrParams
	}{
		{"new store, no parameters asked", "", nil, def, "minhash/1 w=8 seed=0x5ce17c4a11d5eed1", false},
		{"new store, parameters asked", "", &five, five, fiveText, false},
		{"recorded, none asked", fiveText, nil, five, "", false},
		{"recorded, the same asked", fiveText, &five, five, "", false},
		{"recorded, others asked", fiveText, &def, Params{}, "", true},
		{"recorded by another algorithm", "minhash/9 w=5 seed=0x1", nil, Params{}, "", true},
		{"new store, invalid parameters asked", "", &Params{ShingleWords: -1}, Params{}, "", true},
	} {
		use, record, err := Stored(tc.stored, tc.p)
		if (err != nil) != tc.err || (tc.err && !errors.Is(err, ErrParams)) {
			t.Errorf("%s: error %v, want ErrParams: %v", tc.name, err, tc.err)
		}
		if use != tc.use || record != tc.record {
			t.Errorf("%s: use %+v, record %q; want %+v, %q", tc.name, use, record, tc.use, tc.record)
		}
	}
}
