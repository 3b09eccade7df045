package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/sqlite"
)

// newRootCmd builds the command tree. Every flag of every command can also
// be set by the environment (SCENT_MAX_PAGES for --max-pages) or by the
// config file (key max-pages, in the command's section or at top level);
// the order of precedence is flag, environment, file, default.
func newRootCmd() *cobra.Command {
	var configPath, cpuProfile, memProfile string
	var profile, heapProfile *os.File
	root := &cobra.Command{
		Use:           "scent",
		Short:         "A focused web crawler that follows the information scent of links",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if needsSQLite[cmd.Name()] {
				if err := sqlite.Available(); err != nil {
					return err
				}
			}
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return err
				}
				profile = f
			}
			if memProfile != "" {
				// Made now, so that a path it cannot be written to is said
				// before the work, not after it.
				f, err := os.Create(memProfile)
				if err != nil {
					return fmt.Errorf("--memprofile: %w", err)
				}
				heapProfile = f
			}
			if cmd.Name() == "help" || cmd.Name() == "version" || (cmd.HasParent() && cmd.Parent().Name() == "completion") {
				return nil // they read no setting: a broken config file does not stand in their way
			}
			for _, note := range unknownEnv(cmd.Root(), os.Environ()) {
				fmt.Fprintln(cmd.ErrOrStderr(), "scent: "+note)
			}
			return applyConfig(cmd, configPath)
		},
		PersistentPostRunE: func(cmd *cobra.Command, args []string) error {
			if heapProfile != nil {
				if err := writeHeapProfile(heapProfile); err != nil {
					return fmt.Errorf("--memprofile: %w", err)
				}
			}
			if profile != nil {
				pprof.StopCPUProfile()
				return profile.Close()
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&configPath, "config", "", "config file (YAML, TOML or JSON); default ./scent.yaml when present")
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	root.PersistentFlags().StringVar(&memProfile, "memprofile", "", "write a heap profile (live and allocated memory) to this file when the command ends (go tool pprof)")
	useGroupedHelp(root)
	for _, c := range []*cobra.Command{newTrainCmd(), newCrawlCmd(), newExportCmd(), newReportCmd(), newLearntCmd(), newSearchCmd(),
		newRevisitCmd(), newDiffCmd(), newDedupCmd()} {
		c.GroupID = groupEveryday
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newReplayCmd(), newLabelsCmd(), newSeedsCmd(), newLayoutCmd(), newExperimentCmd(),
		newChangeEvalCmd(), newRefreshEvalCmd(), newNormEvalCmd(), newJudgeCmd(), newResultsCmd()} {
		c.GroupID = groupResearch
		root.AddCommand(c)
	}
	nameSources(root)
	return root
}

// needsSQLite names the commands that open a database, which a build
// without cgo cannot: they fail at once rather than after training.
var needsSQLite = map[string]bool{
	"crawl": true, "experiment": true, "export": true, "report": true, "learnt": true, "search": true,
	"dedup": true, "revisit": true, "normalize-eval": true,
}

// writeHeapProfile writes the heap profile into f, made when the command
// started, after a garbage collection, so that it shows what the command
// still holds.
func writeHeapProfile(f *os.File) error {
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
