/**
 * `tide completion bash|zsh`: a completion script built from the command tree itself, so it never
 * falls behind the commands. zsh uses the same script through bashcompinit.
 *
 *   source <(tide completion bash)          # or add it to ~/.bashrc
 *   source <(tide completion zsh)           # or add it to ~/.zshrc
 */
import { Command } from 'commander';
import { action, UsageError } from '../common';

interface Node {
  path: string;
  subcommands: string[];
  options: string[];
}

function walk(command: Command, path: string, out: Node[]): void {
  const options = command.options.flatMap((o) => [o.short, o.long].filter((f): f is string => !!f));
  out.push({ path, subcommands: command.commands.map((c) => c.name()), options: [...options, '--help'] });
  for (const sub of command.commands) walk(sub, `${path} ${sub.name()}`, out);
}

/** The bash script for `root`'s tree. */
export function bashCompletion(root: Command): string {
  const nodes: Node[] = [];
  walk(root, 'tide', nodes);
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const subs = nodes.map((n) => `  [${quote(n.path)}]=${quote(n.subcommands.join(' '))}`).join('\n');
  const opts = nodes.map((n) => `  [${quote(n.path)}]=${quote(n.options.join(' '))}`).join('\n');
  return `# tide completion (bash); source <(tide completion bash)
_tide_complete() {
  local -A subs=(
${subs}
  )
  local -A opts=(
${opts}
  )
  local cur="\${COMP_WORDS[COMP_CWORD]}" node=tide w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    if [[ " \${subs[$node]} " == *" $w "* ]]; then node="$node $w"; fi
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "\${opts[$node]}" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "\${subs[$node]}" -- "$cur"))
  fi
}
complete -o default -F _tide_complete tide
`;
}

/** The zsh script: the bash one through bashcompinit. */
export function zshCompletion(root: Command): string {
  return `#compdef tide
# tide completion (zsh); source <(tide completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(root)}`;
}

export function completionCommand(): Command {
  return new Command('completion')
    .description('print a shell completion script: source <(tide completion bash)')
    .argument('<shell>', 'bash or zsh')
    .action(
      action(async (shell: string, _opts: object, command: Command) => {
        const root = command.parent!;
        if (shell === 'bash') process.stdout.write(bashCompletion(root));
        else if (shell === 'zsh') process.stdout.write(zshCompletion(root));
        else throw new UsageError(`no completion for shell "${shell}"; give bash or zsh`);
      }),
    );
}
