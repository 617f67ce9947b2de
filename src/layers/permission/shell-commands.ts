import { optionEnds, type OptionSpec, spec, type Word } from "./shell-options.js"

/**
 * What a simple command really runs, for deny and ask rules: the command itself, the command a
 * wrapper runs (`env`, `sudo`, `timeout 5`, `xargs`, ...), and a tool's subcommand once its
 * global options are skipped (`git -C . --no-pager push` reads as `git push`). Each such
 * reading starts with the program's base name (`/usr/bin/git` reads as `git`).
 */

/** Programs that run the command given after their own options. */
const WRAPPERS: Readonly<Record<string, OptionSpec & { readonly notWhen?: ReadonlyArray<string> }>> = {
  env: spec("-u --unset -C --chdir -S --split-string", "-i --ignore-environment -0 --null -v --debug", { assignments: true }),
  command: { ...spec("", "-p -v -V"), notWhen: ["-v", "-V"] },
  builtin: spec("", ""),
  exec: spec("-a", "-c -l"),
  nice: spec("-n --adjustment", ""),
  nohup: spec("", ""),
  time: spec("-f --format -o --output", "-p -a --append -v --verbose -q --quiet"),
  timeout: spec("-k --kill-after -s --signal", "--preserve-status --foreground -v --verbose", { operands: 1 }),
  stdbuf: spec("-i -o -e --input --output --error", ""),
  sudo: spec(
    "-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -R --chroot -T --command-timeout -U --other-user -r --role -t --type",
    "-A --askpass -b --background -E --preserve-env -H --set-home -i --login -k --reset-timestamp -K -n --non-interactive -P --preserve-groups -S --stdin -s --shell -B --bell -N --no-update"
  ),
  doas: spec("-u -C", "-n -s -L"),
  setsid: spec("", "-c --ctty -f --fork -w --wait"),
  ionice: spec("-c --class -n --classdata -p --pid -P --pgid -u --uid", "-t --ignore"),
  chrt: spec("-T --sched-runtime -P --sched-period -D --sched-deadline", "-a --all-tasks -b --batch -d --deadline -f --fifo -i --idle -o --other -r --rr -R --reset-on-fork -v --verbose", {
    operands: 1
  }),
  xargs: spec(
    "-a --arg-file -d --delimiter -E -I -L --max-lines -n --max-args -P --max-procs -s --max-chars --process-slot-var",
    "-0 --null -o --open-tty -p --interactive -r --no-run-if-empty -t --verbose -x --exit --show-limits"
  ),
  watch: spec("-n --interval -q --equexit", "-b --beep -c --color -C --no-color -d --differences -e --errexit -g --chgexit -p --precise -t --no-title -w --no-wrap -x --exec"),
  flock: spec("-w --timeout -E --conflict-exit-code", "-s --shared -x -e --exclusive -u --unlock -n --nb --nonblock -o --close -F --no-fork --verbose", { operands: 1 }),
  chroot: spec("--userspec --groups", "--skip-chdir", { operands: 1 }),
  taskset: spec("", "-a --all-tasks -c --cpu-list", { operands: 1 }),
  strace: spec("-o -e -p -s -a -u -E -P -b -I -O -S -X", "-f -c -C -d -D -F -h -i -k -q -r -t -T -v -V -w -x -y -z -Z"),
  ltrace: spec("-o -e -p -s -a -u -n -l -x -L", "-f -c -C -d -D -h -i -r -S -t -T -V -w"),
  unbuffer: spec("", "-p"),
  proxychains: spec("-f", "-q"),
  proxychains4: spec("-f", "-q"),
  torsocks: spec("-u -p -a -P", "-i -d --shell"),
  fakeroot: spec("-l --lib --faked -s -i -b", "-u --unknown-is-real"),
  faketime: spec("", "-f", { operands: 1 }),
  busybox: spec("", ""),
  unshare: spec("", "-m --mount -u --uts -i --ipc -n --net -p --pid -U --user -C --cgroup -T --time -f --fork -r --map-root-user -c --map-current-user --mount-proc"),
  firejail: spec("", ""),
  "dbus-run-session": spec("--config-file --dbus-daemon", ""),
  catchsegv: spec("", ""),
  setpriv: spec(
    "--ruid --euid --reuid --rgid --egid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule --seccomp-filter",
    "-d --dump --nnp --no-new-privs --keep-groups --clear-groups --init-groups --reset-env"
  ),
  prlimit: spec("-p --pid -o --output", "--noheadings --raw --verbose", {
    optionalValue:
      "-c --core -d --data -e --nice -f --fsize -i --sigpending -l --memlock -m --rss -n --nofile -q --msgqueue -r --rtprio -s --stack -t --cpu -u --nproc -v --as -x --locks -y --rttime"
  }),
  nsenter: spec("-t --target -S --setuid -G --setgid -W --wdns", "-a --all -e --env -F --no-fork -Z --follow-context -c --join-cgroup --user-parent --preserve-credentials --keep-caps", {
    optionalValue: "-m --mount -u --uts -i --ipc -n --net -N --net-socket -p --pid -C --cgroup -U --user -T --time -r --root -w --wd"
  }),
  // `runuser -u USER cmd` runs cmd; `runuser USER -c code` is read as code (shell-command-facts).
  runuser: spec("-u --user -g --group -G --supp-group -s --shell -c --command --session-command -w --whitelist-environment", "-l --login -m -p --preserve-environment -P --pty -f --fast"),
  setarch: spec("--uname-2.6", "-v --verbose -3 --3gb -B --32bit -F --fdpic-funcptrs -I --short-inode -L --addr-compat-layout -R --addr-no-randomize -S --whole-seconds -T --sticky-timeouts -X --read-implies-exec -Z --mmap-page-zero --4gb", {
    leadingOperand: true
  }),
  linux32: spec("", "-v --verbose -3 --3gb -B --32bit -F -I -L -R -S -T -X -Z --4gb"),
  linux64: spec("", "-v --verbose -3 --3gb -B --32bit -F -I -L -R -S -T -X -Z --4gb"),
  bwrap: spec(
    "--args --argv0 --level-prefix --unshare-user-try --userns --userns2 --pidns --uid --gid --hostname --chdir --unsetenv --lock-file --sync-fd --remount-ro --exec-label --file-label --proc --dev --tmpfs --mqueue --dir --seccomp --add-seccomp-fd --block-fd --userns-block-fd --info-fd --json-status-fd --cap-add --cap-drop --perms --size --overlay-src --tmp-overlay --ro-overlay --setenv:2 --bind:2 --bind-try:2 --dev-bind:2 --dev-bind-try:2 --ro-bind:2 --ro-bind-try:2 --bind-fd:2 --ro-bind-fd:2 --file:2 --bind-data:2 --ro-bind-data:2 --symlink:2 --chmod:2 --overlay:3",
    "--unshare-all --share-net --unshare-user --unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try --clearenv --new-session --die-with-parent --as-pid-1 --disable-userns --assert-userns-disabled"
  ),
  valgrind: spec("", "-q --quiet -v --verbose -s -d"),
  cgexec: spec("-g", "--sticky -h --help"),
  "systemd-run": spec(
    "-u --unit -p --property --description --slice -E --setenv -M --machine -H --host --uid --gid --nice -D --working-directory --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --timer-property --path-property --socket-property --service-type",
    "--user --system --scope -r --remain-after-exit -t --pty -T --pty-late -P --pipe -q --quiet -G --collect --wait -S --shell --send-sighup --no-block --no-ask-password -d --same-dir --slice-inherit"
  ),
  run0: spec("-u --user -g --group --nice -D --chdir --setenv --unit --property --description --slice --machine --background --pty-late", "--no-ask-password --slice-inherit -i --via-shell"),
  pkexec: spec("--user", "--disable-internal-agent --keep-cwd"),
  proot: spec("-r --rootfs -b --bind -m --mount -w --pwd --cwd -q --qemu -k --kernel-release -i -v --verbose -p --port", "-0 --root-id -R -S -l --link2symlink -V -h --help"),
  eatmydata: spec("", ""),
  nocache: spec("", ""),
  numactl: spec(
    "-i --interleave -w --weighted-interleave -p --preferred -P --preferred-many -m --membind -N --cpunodebind -C --physcpubind -b --balancing",
    "-a --all -l --localalloc -H --hardware -s --show"
  ),
  gosu: spec("", "", { operands: 1 }),
  "su-exec": spec("", "", { operands: 1 }),
  setuidgid: spec("", "", { operands: 1 }),
  envdir: spec("", "", { operands: 1 }),
  chpst: spec("-u -U -b -e -/ -C -n -l -L -m -d -o -p -f -c", "-v -P -0 -1 -2"),
  "xvfb-run": spec("-e --error-file -f --auth-file -n --server-num -p --xauth-protocol -s --server-args -w --wait", "-a --auto-servernum -d --auto-display -l --listen-tcp"),
  cpulimit: spec("-l --limit -p --pid -e --exe -P --path -c --cpu -s --signal", "-z --lazy -i --include-children -v --verbose -k --kill -r --restore -m --monitor-forks -q --quiet"),
  trickle: spec("-d -u -w -t -l -n -L -P", "-s -v -V"),
  "ssh-agent": spec("-a -E -O -P -t", "-c -D -d -k -s"),
  "dbus-launch": spec("--config-file", "--sh-syntax --csh-syntax --auto-syntax --binary-syntax --close-stderr --exit-with-session --exit-with-x11"),
  ccache: spec("", ""),
  rlwrap: spec("-a -b -C -D -e -f -F -g -H -I -l -n -O -p -P -q -S -s -t -w -z", "-A -c -i -m -N -o -r -R -U -v -W -X"),
  caffeinate: spec("-t -w", "-d -i -m -s -u"),
  "sandbox-exec": spec("-f -n -p -D", ""),
  npx: spec("-p --package", "-y --yes --no -q --quiet"),
  bunx: spec("-p --package", "--bun"),
  pnpx: spec("", "")
}

/** Subcommands that run the command after them (`npm exec -- git push`, `uv run pytest`). */
const RUNNING_SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(["exec", "x"]),
  pnpm: new Set(["exec", "dlx"]),
  yarn: new Set(["exec", "dlx"]),
  bun: new Set(["x", "exec"]),
  uv: new Set(["run"]),
  poetry: new Set(["run"]),
  pdm: new Set(["run"]),
  pipx: new Set(["run"])
}

/** Their own options are not listed: each unknown one is read both ways. */
const SUBCOMMAND_OPTIONS = spec("", "")

/** Tools whose global options come before a subcommand, and that rules name by subcommand. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  git: spec(
    "-C -c --git-dir --work-tree --namespace --super-prefix --config-env --attr-source",
    "-p --paginate -P --no-pager --bare --no-replace-objects --no-lazy-fetch --no-optional-locks --no-advice --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --exec-path -v --version -h --help --html-path --man-path --info-path"
  ),
  npm: spec(
    "--prefix -C -w --workspace --loglevel --userconfig --globalconfig --registry --cache",
    "-g --global -s --silent -q --quiet -d -dd -ddd --verbose -y --yes --json --ws --workspaces --include-workspace-root --offline --prefer-offline --no-audit --no-fund --legacy-peer-deps --force -f --dry-run"
  ),
  pnpm: spec("-C --dir -F --filter --reporter --loglevel", "-w --workspace-root -r --recursive -s --silent --stream --parallel -g --global --aggregate-output"),
  yarn: spec("--cwd", "-s --silent --verbose --offline --frozen-lockfile --non-interactive"),
  bun: spec("--cwd -c --config", "--silent -b --bun"),
  cargo: spec("-C --manifest-path --config -Z --color", "-q --quiet -v -vv --verbose --locked --offline --frozen", { plusOptions: true }),
  go: spec("-C", ""),
  docker: spec("-c --context -H --host --config -l --log-level --tlscacert --tlscert --tlskey", "-D --debug --tls --tlsverify"),
  podman: spec("-c --connection --url --identity --root --runroot --log-level", "--remote"),
  kubectl: spec(
    "--context -n --namespace --kubeconfig --cluster --user -s --server --token --as --as-group --certificate-authority --client-certificate --client-key --request-timeout -v --cache-dir --tls-server-name",
    "--insecure-skip-tls-verify --match-server-version --warnings-as-errors"
  ),
  helm: spec("-n --namespace --kube-context --kubeconfig --registry-config --repository-config --repository-cache", "--debug"),
  make: spec("-C --directory -f --file --makefile -I --include-dir -o --old-file --assume-old -W --what-if --new-file --assume-new", "-B --always-make -e -i -k --keep-going -n --dry-run -s --silent -S -t -w --no-print-directory -r -R"),
  terraform: spec("", ""),
  gh: spec("-R --repo", ""),
  uv: spec("--directory --project --cache-dir --python --color --config-file", "-q --quiet -v --verbose --offline --no-cache --native-tls --frozen --locked"),
  pip: spec("--python --log --proxy --cache-dir", "-q --quiet -v --verbose --isolated --no-input --no-cache-dir --disable-pip-version-check --require-virtualenv"),
  poetry: spec("-C --directory -P --project", "-q --quiet -v --verbose -n --no-interaction --no-ansi"),
  pdm: spec("-p --project", "-q --quiet -v --verbose"),
  pipx: spec("", "-q --quiet -v --verbose")
}

/** The base name of a program path: rules name programs, not where they are installed. */
export const programName = (word: string) => word.slice(word.lastIndexOf("/") + 1) || word

const MAX_READINGS = 64
const MAX_DEPTH = 8

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"])

/**
 * `git -c alias.p=push p` runs `git push`: the subcommand read through aliases the line
 * defines. An alias to a shell command (`!cmd`), or a config value only known at run time,
 * makes the subcommand unknown.
 */
const gitAliasReadings = (words: ReadonlyArray<Word>, subcommandAt: number): ReadonlyArray<ReadonlyArray<Word>> => {
  const subcommand = words[subcommandAt]
  if (subcommand === undefined) return []
  const readings: Array<ReadonlyArray<Word>> = []
  for (let i = 1; i < subcommandAt; i++) {
    const word = words[i]
    if (word === undefined) continue
    // `--config-env` takes its value from the environment: whatever it defines is unknown.
    if (word.startsWith("--config-env")) {
      readings.push(["git", undefined])
      continue
    }
    if (!word.startsWith("-c")) continue
    const setting = word === "-c" ? words[i + 1] : word.slice(2)
    if (setting === undefined) {
      readings.push(["git", undefined])
      continue
    }
    const alias = /^alias\.([^=]+)=(.*)$/is.exec(setting)
    if (alias === null || alias[1]?.toLowerCase() !== subcommand.toLowerCase()) continue
    const body = alias[2] ?? ""
    readings.push(body.startsWith("!") ? [undefined] : ["git", ...body.split(/\s+/).filter((w) => w.length > 0), ...words.slice(subcommandAt + 1)])
  }
  return readings
}

/** Every reading of what this command runs, starting with itself. A reading led by undefined runs a command only known at run time. */
export const commandReadings = (words: ReadonlyArray<Word>): ReadonlyArray<ReadonlyArray<Word>> => {
  const readings = new Map<string, ReadonlyArray<Word>>()
  let truncated = false
  const add = (reading: ReadonlyArray<Word>) => {
    if (readings.size < MAX_READINGS) readings.set(JSON.stringify(reading.map((w) => w ?? null)), reading)
    else truncated = true
  }
  const visit = (ws: ReadonlyArray<Word>, depth: number): void => {
    const head = ws[0]
    if (head === undefined) {
      if (ws.length > 0) add(ws)
      return
    }
    const name = programName(head)
    const named = [name, ...ws.slice(1)]
    add(named)
    if (depth >= MAX_DEPTH) return add([undefined])
    const global = GLOBAL_OPTIONS[name]
    const running = RUNNING_SUBCOMMANDS[name]
    for (const end of global === undefined ? [] : optionEnds(named, 1, global)) {
      if (end.unknown && named[end.index] !== undefined) add([name, undefined])
      else add([name, ...named.slice(end.index)])
      const subcommand = named[end.index]
      if (name === "git") for (const reading of gitAliasReadings(named, end.index)) add(reading)
      if (running !== undefined && subcommand !== undefined && running.has(subcommand)) {
        for (const inner of optionEnds(named, end.index + 1, SUBCOMMAND_OPTIONS)) {
          if (inner.unknown) add([undefined])
          else if (inner.index < named.length) visit(named.slice(inner.index), depth + 1)
        }
      }
    }
    const wrapper = WRAPPERS[name]
    if (wrapper !== undefined) {
      for (const end of optionEnds(named, 1, wrapper)) {
        if (wrapper.notWhen?.some((option) => end.seen.includes(option)) === true) continue
        // `env -S 'cmd args'` splits its own string into a command: not followed statically.
        if (end.unknown || end.seen.includes("-S") || end.seen.includes("--split-string")) add([undefined])
        else if (end.index < named.length) visit(named.slice(end.index), depth + 1)
      }
    }
    if (name === "find") {
      named.forEach((word, i) => {
        if (word === undefined || !FIND_EXEC.has(word)) return
        const rest = named.slice(i + 1)
        const stop = rest.findIndex((w) => w === ";" || w === "+")
        visit(stop === -1 ? rest : rest.slice(0, stop), depth + 1)
      })
    }
  }
  visit(words, 0)
  // Readings past the bound are not read: what they run counts as unknown.
  return truncated ? [...readings.values(), [undefined]] : [...readings.values()]
}
