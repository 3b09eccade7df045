package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// newRootCmd builds the command tree. Every flag of every command can also
// be set by the environment (SCENT_MAX_PAGES for --max-pages) or by the
// config file (key max-pages, in the command's section or at top level);
// the order of precedence is flag, environment, file, default.
func newRootCmd() *cobra.Command {
	var configPath, cpuProfile, memProfile string
	var profile *os.File
	root := &cobra.Command{
		Use:           "scent",
		Short:         "A focused web crawler that follows the information scent of links",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return err
				}
				profile = f
			}
			return applyConfig(cmd, configPath)
		},
		PersistentPostRunE: func(cmd *cobra.Command, args []string) error {
			if memProfile != "" {
				if err := writeHeapProfile(memProfile); err != nil {
					return err
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
	root.AddCommand(
		newReplayCmd(),
		newLabelsCmd(),
		newLayoutCmd(),
		newSeedsCmd(),
		newTrainCmd(),
		newCrawlCmd(),
		newExportCmd(),
		newReportCmd(),
		newSearchCmd(),
		newDedupCmd(),
		newExperimentCmd(),
		newDiffCmd(),
		newRevisitCmd(),
		newChangeEvalCmd(),
		newRefreshEvalCmd(),
	)
	return root
}

// applyConfig fills every flag the user did not set from the environment
// or the config file.
func applyConfig(cmd *cobra.Command, path string) error {
	v := viper.New()
	v.SetEnvPrefix("SCENT")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", "+", "_"))
	v.AutomaticEnv()
	if path == "" {
		if _, err := os.Stat("scent.yaml"); err == nil {
			path = "scent.yaml"
		}
	}
	if path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
	}
	var errs []error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "config" || f.Name == "help" || f.Name == "cpuprofile" {
			return
		}
		var val any
		switch {
		case v.IsSet(f.Name) && os.Getenv("SCENT_"+strings.ToUpper(strings.NewReplacer("-", "_").Replace(f.Name))) != "":
			val = v.Get(f.Name)
		case v.IsSet(cmd.Name() + "." + f.Name):
			val = v.Get(cmd.Name() + "." + f.Name)
		case v.IsSet(f.Name):
			val = v.Get(f.Name)
		default:
			return
		}
		s := fmt.Sprint(val)
		if list, ok := val.([]any); ok {
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = fmt.Sprint(x)
			}
			s = strings.Join(parts, ",")
		}
		if err := cmd.Flags().Set(f.Name, s); err != nil {
			errs = append(errs, fmt.Errorf("setting %s=%q from environment or config: %w", f.Name, s, err))
		}
	})
	return errors.Join(errs...)
}

// writeHeapProfile writes the heap profile after a garbage collection, so
// that it shows what the command still holds.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
