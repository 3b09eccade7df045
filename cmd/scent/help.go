package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The commands come in two tiers: the everyday ones, which crawl the web
// and read what a crawl stored, first; then the research ones, which
// replay a labelled collection offline and measure crawls and
// evaluations on it.
const (
	groupEveryday = "everyday"
	groupResearch = "research"
)

// flagGroupKey is the flag annotation that names the group a flag is
// listed under in a command's help.
const flagGroupKey = "scent-group"

// The flag groups in the order help lists them; a flag in no group is
// listed last, under "Other flags".
var flagGroups = []struct{ id, title string }{
	{"input", "Input"},
	{"budget", "Budget and scope"},
	{"politeness", "Politeness and fetching"},
	{"output", "Output"},
	{"model", "Model tuning"},
	{"grid", "Grid (comma-separated lists run each value)"},
	{"research", "Research switches"},
}

// setFlagGroup files the named flags of fs under group in help.
func setFlagGroup(fs *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if fs.Lookup(n) == nil {
			panic("setFlagGroup: no flag --" + n)
		}
		_ = fs.SetAnnotation(n, flagGroupKey, []string{group})
	}
}

// groupedFlagUsages lists a command's own flags by group, each under its
// title.
func groupedFlagUsages(c *cobra.Command) string {
	sets := map[string]*pflag.FlagSet{}
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		g := ""
		if v := f.Annotations[flagGroupKey]; len(v) > 0 {
			g = v[0]
		}
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	})
	var b strings.Builder
	write := func(title string, fs *pflag.FlagSet) {
		if fs == nil || !fs.HasAvailableFlags() {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(title + ":\n" + strings.TrimRight(fs.FlagUsages(), " \n") + "\n")
	}
	for _, g := range flagGroups {
		write(g.title, sets[g.id])
	}
	title := "Other flags"
	if len(sets) == 1 {
		title = "Flags"
	}
	write(title, sets[""])
	return strings.TrimRight(b.String(), "\n")
}

// useGroupedHelp makes root's help list commands by tier and each
// command's flags by group.
func useGroupedHelp(root *cobra.Command) {
	cobra.EnableCommandSorting = false
	root.AddGroup(&cobra.Group{ID: groupEveryday, Title: "Everyday commands:"},
		&cobra.Group{ID: groupResearch, Title: "Research commands (a labelled collection replayed offline; evaluations):"})
	cobra.AddTemplateFunc("groupedFlagUsages", groupedFlagUsages)
	const flags = "Flags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}"
	tmpl := root.UsageTemplate()
	if !strings.Contains(tmpl, flags) {
		panic("useGroupedHelp: cobra's usage template changed")
	}
	root.SetUsageTemplate(strings.Replace(tmpl, flags, "{{groupedFlagUsages .}}", 1))
}
