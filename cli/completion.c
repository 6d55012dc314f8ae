/*
 * completion.c - `hcisweep completion bash`: a bash completion script
 * written from the command table and the options tables (see docs.h).
 * Commands and their subcommands (the "a|b|c" word of a command's usage
 * line), every listed option, the choices of NAME/NAMES options (a NAMES
 * list completes after its last comma), file names for text options, and
 * nothing for numbers, so a value is never completed as an option.
 */
#include <ctype.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/docs.h"
#include "core/exitcode.h"
#include "core/log.h"
#include "core/opts.h"

/* The subcommands in a usage line's second word ("prepare|run|cleanup"), or "". */
static void subcommands(const struct hci_command *c, char *out, size_t len)
{
        char syn[128], *w;

        hci_usage_split(c->usage, syn, sizeof(syn));
        out[0] = '\0';
        w = strchr(syn, ' ');
        if (!w || !strchr(w + 1, '|'))
                return;
        w++;
        w[strcspn(w, " ")] = '\0';
        for (char *p = w; *p; p++)
                if (!islower((unsigned char)*p) && *p != '|')
                        return;
        for (char *p = w; *p; p++)
                if (*p == '|')
                        *p = ' ';
        snprintf(out, len, "%s", w);
}

typedef int (*opt_pred)(const struct opt_def *d);

static int any(const struct opt_def *d)
{
        (void)d;
        return 1;
}

static int is_text(const struct opt_def *d)
{
        return d->type == OPT_STR;
}

static int takes_value(const struct opt_def *d)
{
        return d->type != OPT_BOOL;
}

/* The listed options of c that satisfy pred, as "--a --b". */
static void names(FILE *f, const struct hci_command *c, opt_pred pred)
{
        int first = 1;

        for (const struct opt_group *gi = c->options; gi && gi->defs; gi++)
                for (const struct opt_def *d = gi->defs; d->name; d++)
                        if (opt_listed(c->options, gi, d) && pred(d)) {
                                fprintf(f, "%s--%s", first ? "" : " ", d->name);
                                first = 0;
                        }
}

/* One case arm per command: CMD) echo "WORDS";; */
static void per_command(FILE *f, const char *fn, opt_pred pred)
{
        fprintf(f, "%s() {\n        case \"$1\" in\n", fn);
        for (const struct hci_command *c = hci_commands; c->name; c++) {
                if (!c->options)
                        continue;
                fprintf(f, "        %s) echo \"", c->name);
                names(f, c, pred);
                fputs("\" ;;\n", f);
        }
        fputs("        esac\n}\n", f);
}

/* CMD:--opt) echo "choice ...";; for every NAME/NAMES option. */
static void choices(FILE *f)
{
        fputs("_hcisweep_choices() {\n        case \"$1:$2\" in\n", f);
        for (const struct hci_command *c = hci_commands; c->name; c++)
                for (const struct opt_group *gi = c->options; gi && gi->defs; gi++)
                        for (const struct opt_def *d = gi->defs; d->name; d++) {
                                if (!d->choices || !opt_listed(c->options, gi, d))
                                        continue;
                                fprintf(f, "        %s:--%s) echo \"", c->name, d->name);
                                for (unsigned i = 0; d->choices[i]; i++)
                                        fprintf(f, "%s%s", i ? " " : "", d->choices[i]);
                                fputs("\" ;;\n", f);
                        }
        fputs("        esac\n}\n", f);
}

static const char body[] =
    "_hcisweep() {\n"
    "        local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "        local cmd=${COMP_WORDS[1]:-} opt val words pre\n"
    "        COMPREPLY=()\n"
    "        if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
    "                COMPREPLY=($(compgen -W \"$_hcisweep_commands --help --version\" -- "
    "\"$cur\"))\n"
    "                return\n"
    "        fi\n"
    "        case \"$cmd\" in\n"
    "        run) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
    "        help) COMPREPLY=($(compgen -W \"--man\" -- \"$cur\")); return ;;\n"
    "        esac\n"
    "        # --opt=value is one word unless = is a word break\n"
    "        if [[ $cur == --*=* ]]; then\n"
    "                opt=${cur%%%%=*} val=${cur#*=}\n"
    "        elif [[ $cur == = ]]; then\n"
    "                opt=$prev val=\"\"\n"
    "        elif [[ $prev == = && $COMP_CWORD -ge 3 ]]; then\n"
    "                opt=${COMP_WORDS[COMP_CWORD-2]} val=$cur\n"
    "        elif [[ $prev == --* && \" $(_hcisweep_values \"$cmd\") \" == *\" $prev \"* ]]; then\n"
    "                opt=$prev val=$cur\n"
    "        fi\n"
    "        if [ -n \"${opt:-}\" ]; then\n"
    "                words=$(_hcisweep_choices \"$cmd\" \"$opt\")\n"
    "                if [ -n \"$words\" ]; then\n"
    "                        pre=\"\"\n"
    "                        [[ $val == *,* ]] && pre=${val%%,*},\n"
    "                        COMPREPLY=($(compgen -P \"$pre\" -W \"$words\" -- \"${val##*,}\"))\n"
    "                elif [[ \" $(_hcisweep_files \"$cmd\") \" == *\" $opt \"* ]]; then\n"
    "                        COMPREPLY=($(compgen -f -- \"$val\"))\n"
    "                fi\n"
    "                return\n"
    "        fi\n"
    "        words=$(_hcisweep_opts \"$cmd\")\n"
    "        local subs=${_hcisweep_subs[$cmd]:-}\n"
    "        if [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$subs\" ] && [[ $cur != -* ]]; then\n"
    "                COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
    "                return\n"
    "        fi\n"
    "        COMPREPLY=($(compgen -W \"$words --help\" -- \"$cur\"))\n"
    "}\n"
    "complete -o default -F _hcisweep hcisweep\n";

static void script(FILE *f)
{
        char subs[128];

        fprintf(f,
                "# bash completion for hcisweep %s: made by `hcisweep completion bash`\n"
                "# from the same options tables as --help (source it, or install it as\n"
                "# /usr/share/bash-completion/completions/hcisweep).\n",
                HCISWEEP_VERSION);
        fputs("_hcisweep_commands=\"", f);
        for (const struct hci_command *c = hci_commands; c->name; c++)
                fprintf(f, "%s ", c->name);
        fputs("help\"\ndeclare -A _hcisweep_subs=(", f);
        for (const struct hci_command *c = hci_commands; c->name; c++) {
                subcommands(c, subs, sizeof(subs));
                if (subs[0])
                        fprintf(f, " [%s]=\"%s\"", c->name, subs);
        }
        fputs(" )\n", f);
        per_command(f, "_hcisweep_opts", any);
        per_command(f, "_hcisweep_values", takes_value);
        per_command(f, "_hcisweep_files", is_text);
        choices(f);
        fputs(body, f);
}

int cmd_completion(int argc, char **argv)
{
        if (argc == 2 && !strcmp(argv[1], "bash")) {
                script(stdout);
                return HCI_EXIT_OK;
        }
        if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
                printf("usage: hcisweep completion bash\n\n"
                       "Prints the bash completion script: source <(hcisweep completion bash)\n");
                return HCI_EXIT_OK;
        }
        log_error("usage: hcisweep completion bash (the only shell supported)");
        return HCI_EXIT_USAGE;
}
