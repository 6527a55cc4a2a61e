package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"epsim/scenarios"
)

var cmdCompletion = &command{
	name:  "completion",
	usage: "completion bash|zsh|fish",
	short: "print a shell completion script",
	long: `Completion prints a script that completes sim's commands, each command's flags, the
values of the flags that take a fixed set (--mode, --format, --start; also as --mode=VALUE),
files for the flags that take a FILE or DIR (and no other values: --seed, --jobs…), and the
scenarios and plans built into sim (besides files) for the shell named. Load it in the
current shell, or install it where the shell looks for completions.

Examples:

    sim completion bash
    sim completion zsh
    sim completion fish

    source <(sim completion bash)                       # bash, this shell
    sim completion zsh > "${fpath[1]}/_sim"             # zsh
    sim completion fish > ~/.config/fish/completions/sim.fish`,
	setup: func(fs *flag.FlagSet) func(e *env, args []string) error {
		return func(e *env, args []string) error {
			if len(args) != 1 {
				return usageErrorf("completion", "completion takes one shell: bash, zsh or fish")
			}
			spec := completionSpec(e.names(), scenarios.PlanNames())
			switch args[0] {
			case "bash":
				return writeBashCompletion(e.stdout, spec)
			case "zsh":
				return writeZshCompletion(e.stdout, spec)
			case "fish":
				return writeFishCompletion(e.stdout, spec)
			}
			return usageErrorf("completion", "completion %q: want bash, zsh or fish", args[0])
		}
	},
}

// completionCommand is what a shell needs to complete one command.
type completionCommand struct {
	name, short string
	// flags are the flag names with their dashes ("--out", "-o"); bools take no value.
	flags []completionFlag
	// words are the names the command's arguments may be besides files.
	words []string
}

type completionFlag struct {
	name, usage string
	bool        bool
	// choices are the values of a flag with a fixed set (choiceFlag), completed instead of
	// files.
	choices []string
	// file: the flag's value is a path (its usage names it FILE or DIR), completed as a
	// file; other values (N, path=value, i/n…) are not completed.
	file bool
}

// completionSpec describes every command for the completion scripts.
func completionSpec(scenarioNames, planNames []string) []completionCommand {
	var out []completionCommand
	for _, c := range commands {
		cc := completionCommand{name: c.name, short: c.short}
		fs := newFlagSet(c)
		c.setup(fs)
		fs.VisitAll(func(f *flag.Flag) {
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-"
			}
			placeholder, usage := flag.UnquoteUsage(f)
			cf := completionFlag{name: dash + f.Name, usage: usage, bool: isBoolFlag(fs, f.Name),
				file: placeholder == "FILE" || placeholder == "DIR"}
			if v, ok := f.Value.(interface{ Choices() []string }); ok {
				cf.choices = v.Choices()
			}
			cc.flags = append(cc.flags, cf)
		})
		switch c.name {
		case "run", "check", "validate":
			cc.words = scenarioNames
		case "plan":
			cc.words = planNames
		case "help":
			for _, d := range commands {
				cc.words = append(cc.words, d.name)
			}
		case "completion":
			cc.words = []string{"bash", "zsh", "fish"}
		}
		out = append(out, cc)
	}
	return out
}

func commandNames(spec []completionCommand) string {
	names := make([]string, len(spec))
	for i, c := range spec {
		names[i] = c.name
	}
	return strings.Join(names, " ")
}

func flagNames(c completionCommand) string {
	var names []string
	for _, f := range c.flags {
		names = append(names, f.name)
	}
	return strings.Join(names, " ")
}

// bashValueCases returns the bash case arms, on "$cmd $prev", that complete the value of
// every flag that takes one: one arm per fixed set, naming each command's flag that takes
// it; one for the flags that take a path (files); one for the others (nothing: not a
// file, nor a word after them as an argument). A flag's name may take a fixed set, a file
// or another value in another command.
func bashValueCases(spec []completionCommand) string {
	const files, none = "\x00files", "\x00none"
	var sets []string
	byValues := map[string][]string{}
	for _, c := range spec {
		for _, f := range c.flags {
			k := strings.Join(f.choices, " ")
			switch {
			case f.bool:
				continue
			case len(f.choices) > 0:
			case f.file:
				k = files
			default:
				k = none
			}
			if _, ok := byValues[k]; !ok {
				sets = append(sets, k)
			}
			byValues[k] = append(byValues[k], fmt.Sprintf("%q", c.name+" "+f.name))
		}
	}
	var b strings.Builder
	for _, k := range sets {
		reply := fmt.Sprintf("_sim_reply $(compgen -W %q -- \"$cur\")", k)
		switch k {
		case files:
			reply = `_sim_reply $(compgen -f -- "$cur")`
		case none:
			reply = "COMPREPLY=()"
		}
		fmt.Fprintf(&b, "        %s)\n            %s\n            return;;\n", strings.Join(byValues[k], "|"), reply)
	}
	return b.String()
}

func writeBashCompletion(w io.Writer, spec []completionCommand) error {
	ew := &strings.Builder{}
	fmt.Fprint(ew, `# bash completion for sim (sim completion bash)
_sim() {
    local cur prev cmd
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ ${COMP_CWORD} -eq 1 ]]; then
        COMPREPLY=($(compgen -W "`+commandNames(spec)+`" -- "$cur"))
        return
    fi
    cmd="${COMP_WORDS[1]}"
    # --flag=value: with = in COMP_WORDBREAKS (bash's default) its words are --flag, = and
    # value; without, one word, whose completions keep the --flag= prefix.
    local prefix=""
    if [[ "$cur" == "=" && "$prev" == -* ]]; then
        cur=""
    elif [[ "$prev" == "=" && ${COMP_CWORD} -ge 3 ]]; then
        prev="${COMP_WORDS[COMP_CWORD-2]}"
    elif [[ "$cur" == -*=* ]]; then
        prev="${cur%%=*}"
        prefix="$prev="
        cur="${cur#*=}"
    fi
    case "$cmd $prev" in
`+bashValueCases(spec)+`    esac
    local flags="" words=""
    case "$cmd" in
`)
	for _, c := range spec {
		fmt.Fprintf(ew, "        %s) flags=%q; words=%q;;\n", c.name, flagNames(c), strings.Join(c.words, " "))
	}
	fmt.Fprint(ew, `    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$words" -- "$cur") $(compgen -f -- "$cur"))
    fi
}
_sim_reply() {
    COMPREPLY=("${@/#/$prefix}")
}
complete -o filenames -F _sim sim
`)
	_, err := io.WriteString(w, ew.String())
	return err
}

// zshQuote quotes s for a single-quoted zsh word, escaping the brackets and colons that
// _arguments specs treat specially.
func zshQuote(s string) string {
	s = strings.ReplaceAll(s, "'", `'\''`)
	s = strings.ReplaceAll(s, "[", `\[`)
	s = strings.ReplaceAll(s, "]", `\]`)
	return strings.ReplaceAll(s, ":", `\:`)
}

func writeZshCompletion(w io.Writer, spec []completionCommand) error {
	ew := &strings.Builder{}
	fmt.Fprint(ew, `#compdef sim
# zsh completion for sim (sim completion zsh)
_sim() {
    local -a commands
    commands=(
`)
	for _, c := range spec {
		fmt.Fprintf(ew, "        '%s:%s'\n", c.name, zshQuote(c.short))
	}
	fmt.Fprint(ew, `    )
    if (( CURRENT == 2 )); then
        _describe 'command' commands
        return
    fi
    local cmd=${words[2]}
    shift words; (( CURRENT-- ))
    case $cmd in
`)
	for _, c := range spec {
		fmt.Fprintf(ew, "        %s)\n            _arguments", c.name)
		for _, f := range c.flags {
			spec := fmt.Sprintf("'%s[%s]'", f.name, zshQuote(f.usage))
			if len(f.choices) > 0 {
				spec = fmt.Sprintf("'%s=[%s]:value:(%s)'", f.name, zshQuote(f.usage), strings.Join(f.choices, " "))
			} else if f.file {
				spec = fmt.Sprintf("'%s=[%s]:value:_files'", f.name, zshQuote(f.usage))
			} else if !f.bool {
				spec = fmt.Sprintf("'%s=[%s]:value: '", f.name, zshQuote(f.usage))
			}
			fmt.Fprintf(ew, " \\\n                %s", spec)
		}
		if len(c.words) > 0 {
			fmt.Fprintf(ew, " \\\n                '*:argument:(%s)'", strings.Join(c.words, " "))
		} else {
			fmt.Fprint(ew, " \\\n                '*:file:_files'")
		}
		fmt.Fprint(ew, ";;\n")
	}
	fmt.Fprint(ew, `    esac
}
compdef _sim sim
`)
	_, err := io.WriteString(w, ew.String())
	return err
}

// fishQuote quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func writeFishCompletion(w io.Writer, spec []completionCommand) error {
	ew := &strings.Builder{}
	fmt.Fprintln(ew, "# fish completion for sim (sim completion fish)")
	fmt.Fprintln(ew, "complete -c sim -f")
	names := commandNames(spec)
	for _, c := range spec {
		fmt.Fprintf(ew, "complete -c sim -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", names, c.name, fishQuote(c.short))
	}
	for _, c := range spec {
		cond := "__fish_seen_subcommand_from " + c.name
		for _, f := range c.flags {
			opt := "-l " + strings.TrimPrefix(f.name, "--")
			if len(f.name) == 2 {
				opt = "-s " + strings.TrimPrefix(f.name, "-")
			}
			req := ""
			if len(f.choices) > 0 {
				req = " -x -a " + fishQuote(strings.Join(f.choices, " "))
			} else if f.file {
				req = " -r -F"
			} else if !f.bool {
				req = " -x"
			}
			fmt.Fprintf(ew, "complete -c sim -n '%s' %s%s -d %s\n", cond, opt, req, fishQuote(f.usage))
		}
		if len(c.words) > 0 {
			fmt.Fprintf(ew, "complete -c sim -n '%s' -a %s\n", cond, fishQuote(strings.Join(c.words, " ")))
		}
		if c.name != "help" && c.name != "completion" && c.name != "version" {
			fmt.Fprintf(ew, "complete -c sim -n '%s' -F\n", cond)
		}
	}
	_, err := io.WriteString(w, ew.String())
	return err
}
