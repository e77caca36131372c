//! The command-line client's help and errors, run as a user would run the binary: connection
//! flags under their own heading, the board notation in `--board`'s help, examples that work,
//! and one-line errors that say what to do (TLS port, metrics port, server down, an address
//! without a scheme, long boards, negative numbers), colours as letters, no trailing spaces.

mod common;

use common::{TestServer, free_port};

/// `matchgrid ARGS...` without any `MATCHGRID_*` variable; returns (exit code, stdout, stderr).
fn matchgrid(args: &[&str]) -> (Option<i32>, String, String) {
    common::run_cli(args, &[])
}

/// [`matchgrid`] that must succeed; its stdout.
fn ok(args: &[&str]) -> String {
    let (code, stdout, stderr) = matchgrid(args);
    assert_eq!(code, Some(0), "matchgrid {args:?}: {stderr}");
    stdout
}

/// [`matchgrid`] that must fail with `code` and one line on stderr; that line.
fn fails(code: i32, args: &[&str]) -> String {
    let (status, stdout, stderr) = matchgrid(args);
    assert_eq!(status, Some(code), "matchgrid {args:?}: {stdout}{stderr}");
    assert_eq!(stdout, "", "matchgrid {args:?}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    stderr.trim_end().to_owned()
}

/// The flag names (`--x`) of a help text's section `heading` (up to the next blank-line
/// heading), in order.
fn section_flags(help: &str, heading: &str) -> Vec<String> {
    let start = help
        .find(&format!("\n{heading}:\n"))
        .unwrap_or_else(|| panic!("no {heading:?} section in:\n{help}"));
    help[start + heading.len() + 3..]
        .lines()
        .take_while(|line| line.is_empty() || line.starts_with(' '))
        .filter_map(|line| {
            let flag = line
                .trim_start()
                .split([' ', ','])
                .find(|w| w.starts_with("--"))?;
            line.trim_start().starts_with('-').then(|| flag.to_owned())
        })
        .collect()
}

const CONNECTION: [&str; 6] = [
    "--server",
    "--max-message-bytes",
    "--tls-ca",
    "--tls-cert",
    "--tls-key",
    "--tls-server-name",
];

#[test]
fn connection_flags_have_their_own_heading_after_the_commands_own() {
    for command in [
        &["swap", "resolve", "--help"][..],
        &["swap", "resolve", "-h"][..],
        &["collapse", "solve", "--help"][..],
        &["swap", "--help"][..],
        &["level", "play", "--help"][..],
    ] {
        let help = ok(command);
        assert_eq!(
            section_flags(&help, "Connection"),
            CONNECTION,
            "{command:?}"
        );
        let options = section_flags(&help, "Options");
        for flag in CONNECTION {
            assert!(
                !options.contains(&flag.to_owned()),
                "{command:?}: {flag} in Options"
            );
        }
        assert!(
            help.find("\nOptions:\n") < help.find("\nConnection:\n"),
            "{command:?}: the command's own flags first:\n{help}"
        );
    }
    let resolve = section_flags(&ok(&["swap", "resolve", "--help"]), "Options");
    assert_eq!(
        resolve,
        [
            "--board",
            "--swap",
            "--colors",
            "--seed",
            "--refill",
            "--no-auto-shuffle",
            "--max-steps",
            "--step-boards",
            "--json",
            "--no-color",
            "--help",
            "--version"
        ]
    );
    // serve lists none of the client's flags.
    let serve = ok(&["serve", "--help"]);
    // (serve has a --max-message-bytes and --tls-cert/--tls-key of its own.)
    for flag in ["--server", "--tls-ca", "--tls-server-name", "--json"] {
        assert!(
            !serve.contains(&format!("{flag} ")) && !serve.contains(&format!("{flag}\n")),
            "serve --help lists {flag}"
        );
    }
    assert!(serve.contains("--listen"), "{serve}");
    assert!(serve.contains("--tls-client-ca"), "{serve}");
}

#[test]
fn board_help_explains_the_notation() {
    for command in [
        &["swap", "validate", "--help"][..],
        &["swap", "resolve", "-h"][..],
        &["collapse", "tap", "--help"][..],
    ] {
        let help = ok(command);
        let board = help
            .rsplit("--board <BOARD>")
            .next()
            .unwrap_or_else(|| panic!("no --board in {command:?}"))
            .split("\n      --")
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for needle in [
            "rows top to bottom joined by '/'",
            "R G B Y P O C W K M A D E F H I are colours 1..=16",
            "'.' is empty",
            "'#' a hole",
            "'*' a colour bomb",
            "'-', '|' or '+'",
            "E.g. RRG/GGR",
        ] {
            assert!(
                board.contains(needle),
                "{command:?}: {needle:?} not in {board:?}"
            );
        }
    }
}

#[test]
fn top_level_help_shows_examples_that_work() {
    let help = ok(&["--help"]);
    let examples: Vec<&str> = help
        .split("\nExamples:\n")
        .nth(1)
        .expect("an Examples section")
        .lines()
        .take_while(|line| !line.is_empty())
        .map(|line| {
            line.trim()
                .strip_prefix("matchgrid ")
                .expect("a matchgrid command")
        })
        .collect();
    assert!(examples.len() >= 5, "{examples:?}");
    assert_eq!(examples[0], "serve");
    let server = TestServer::start(&[]);
    let url = server.url();
    let mut ran = 0;
    for example in &examples[1..] {
        if example.contains("https://") {
            // Needs a TLS server and its CA: it parses (a bad flag would exit 2, not 1).
            let args: Vec<&str> = example.split_whitespace().collect();
            let (code, _, stderr) = matchgrid(&args);
            assert_eq!(code, Some(1), "{example}: {stderr}");
            assert!(stderr.contains("--tls-ca ca.pem: cannot read"), "{stderr}");
            continue;
        }
        let args: Vec<&str> = ["--server", url.as_str()]
            .into_iter()
            .chain(example.split_whitespace())
            .collect();
        let stdout = ok(&args);
        assert!(!stdout.is_empty(), "{example}");
        ran += 1;
    }
    assert!(ran >= 4, "{examples:?}");
}

#[test]
fn connection_errors_say_what_to_do() {
    // Server down.
    let port = free_port();
    let down = format!("http://127.0.0.1:{port}");
    let line = fails(
        1,
        &["--server", &down, "swap", "dead", "--board", "RGB/GBR/BRG"],
    );
    assert!(line.contains("Connection refused"), "{line}");
    assert!(
        line.ends_with(
            "(os error 111); is `matchgrid serve` running there? It listens on --listen, \
             0.0.0.0:50051 by default"
        ),
        "{line}"
    );

    let server = TestServer::start(&[]);
    // An address without a scheme is http://.
    let bare = server.addr.to_string();
    assert_eq!(
        ok(&["--server", &bare, "swap", "dead", "--board", "RGB/GBR/BRG"]),
        "dead: true\nvalid swaps (0):\n"
    );
    assert_eq!(
        ok(&["swap", "dead", "--board", "RGB/GBR/BRG", "--server", &bare]),
        "dead: true\nvalid swaps (0):\n"
    );
    // The metrics port (HTTP/1) is not a gRPC server.
    let metrics = format!("http://{}", server.metrics_addr);
    let line = fails(
        1,
        &[
            "--server",
            &metrics,
            "swap",
            "dead",
            "--board",
            "RGB/GBR/BRG",
        ],
    );
    assert!(
        line.contains(&format!(
            "; {metrics} answers HTTP/1, not gRPC: not a gRPC server? The metrics port \
             serves only GET /metrics"
        )),
        "{line}"
    );
    // https:// to a plaintext port.
    let dir = std::env::temp_dir().join(format!("matchgrid-cli-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert_path, key_path) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let (cert_path, key_path) = (
        cert_path.display().to_string(),
        key_path.display().to_string(),
    );
    let https = format!("https://{}", server.addr);
    let line = fails(
        1,
        &[
            "swap",
            "--server",
            &https,
            "--tls-ca",
            &cert_path,
            "--tls-server-name",
            "localhost",
            "dead",
            "--board",
            "RGB/GBR/BRG",
        ],
    );
    assert!(
        line.ends_with(&format!(
            "; {https} does not answer with TLS: try http://{}",
            server.addr
        )),
        "{line}"
    );

    // Plaintext to a TLS port: suggests https:// and the --tls-* flags.
    let tls = TestServer::start(&["--tls-cert", &cert_path, "--tls-key", &key_path]);
    let plain = format!("http://{}", tls.addr);
    let line = fails(
        1,
        &["--server", &plain, "swap", "dead", "--board", "RGB/GBR/BRG"],
    );
    assert!(
        line.ends_with(&format!(
            "; {plain} answers with TLS: call it as https://{} with --tls-ca (and \
             --tls-cert/--tls-key if it asks for a client certificate)",
            tls.addr
        )),
        "{line}"
    );
    // And as https:// with its CA it answers.
    let https = format!("https://{}", tls.addr);
    assert_eq!(
        ok(&[
            "swap",
            "--server",
            &https,
            "--tls-ca",
            &cert_path,
            "--tls-server-name",
            "localhost",
            "dead",
            "--board",
            "RGB/GBR/BRG",
        ]),
        "dead: true\nvalid swaps (0):\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flag_errors_are_short_and_clear() {
    // An 80-wide board is not repeated: only its length.
    let wide = vec!["RG".repeat(40); 3].join("/");
    let line = fails(
        2,
        &["swap", "validate", "--board", &wide, "--swap", "0,0:0,1"],
    );
    assert_eq!(
        line,
        "matchgrid: invalid value for '--board <BOARD>' (a 242-character text): width must be \
         1..=64, got 80"
    );
    // A short one still is.
    let line = fails(
        2,
        &["swap", "validate", "--board", "RRG/GG", "--swap", "0,0:0,1"],
    );
    assert_eq!(
        line,
        "matchgrid: invalid value 'RRG/GG' for '--board <BOARD>': board text: row 1 has 2 \
         cells, row 0 has 3"
    );
    // Negative numbers are values, refused by their range.
    assert_eq!(
        fails(2, &["swap", "generate", "--width", "-3"]),
        "matchgrid: invalid value '-3' for '--width <WIDTH>': -3 is not in 1..=64"
    );
    assert_eq!(
        fails(2, &["collapse", "generate", "--height", "65"]),
        "matchgrid: invalid value '65' for '--height <HEIGHT>': 65 is not in 1..=64"
    );
    let line = fails(2, &["swap", "hint", "--board", "RGB", "--top", "-1"]);
    assert!(
        line.starts_with("matchgrid: invalid value '-1' for '--top <TOP>'"),
        "{line}"
    );
}

#[test]
fn colours_print_as_letters_and_grids_have_no_trailing_spaces() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let run = |args: &[&str]| ok(&[&["--server", url.as_str()][..], args].concat());
    assert_eq!(
        run(&[
            "swap", "validate", "--board", "RRG/GGR", "--swap", "0,2:1,2"
        ]),
        "verdict: SWAP_VERDICT_OK\ngroup colour R size 3\ngroup colour G size 3\n"
    );
    // Colours past 8 too: A is 11, C is 7.
    assert_eq!(
        run(&["collapse", "tap", "--board", "ABBC/ABBC", "--at", "0,1"]),
        "before\nA B B C\nA B B C\n\ncleared 4 tile(s) of colour B\nafter (AC../AC..)\n\
         A C . .\nA C . .\nmove score 80, tiles left 4, game over false\n"
    );
    assert_eq!(
        run(&["collapse", "groups", "--board", "ABBC/ABBC"]),
        "A B B C\nA B B C\ngroup at 0,0 colour A size 2 score 20\n\
         group at 0,1 colour B size 4 score 80\ngroup at 0,3 colour C size 2 score 20\n\
         tiles left 8, game over false\n"
    );
    let solve = run(&[
        "collapse",
        "solve",
        "--board",
        "ABBC/ABBC",
        "--max-nodes",
        "1000",
    ]);
    assert!(solve.contains("  1. tap "), "{solve}");
    for line in solve.lines().filter(|l| l.contains(". tap ")) {
        let colour = line
            .split("colour ")
            .nth(1)
            .and_then(|r| r.split(' ').next());
        assert!(matches!(colour, Some("A" | "B" | "C")), "{line}");
    }
    // Level grids (two columns a cell) and swap replay grids: no line ends in a space.
    let level = run(&[
        "swap",
        "resolve",
        "--board",
        "RGBYR/GB#RB/Y*R+GY/B#GYR/RYBGB",
        "--swap",
        "2,1:2,2",
        "--colors",
        "5",
        "--seed",
        "42",
    ]);
    assert!(level.contains("\nY  *  R+ G  Y\n"), "{level}");
    for text in [&solve, &level] {
        for line in text.lines() {
            assert_eq!(line, line.trim_end(), "trailing space in {text}");
        }
    }
}

#[test]
fn replays_print_their_digest_alike() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let digest = |text: &str| -> String {
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("sha256")).collect();
        assert_eq!(lines.len(), 1, "{text}");
        let hex = lines[0]
            .strip_prefix("digest sha256:")
            .unwrap_or_else(|| panic!("{:?}", lines[0]));
        assert_eq!(hex.len(), 64, "{hex}");
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        hex.to_owned()
    };
    let swap = ok(&[
        "--server",
        &url,
        "swap",
        "replay",
        "--board",
        "RGRR/BRBB/GBGG",
        "--swaps",
        "0,1:1,1 1,0:1,1",
        "--colors",
        "4",
    ]);
    assert_eq!(
        digest(&swap),
        "bb93d564e339c43d95bc77679a4884f400b58de985bf2582a43babcb5b288760"
    );
    let collapse = ok(&[
        "--server",
        &url,
        "collapse",
        "replay",
        "--board",
        "ABBC/ABBC",
        "--taps",
        "0,1",
    ]);
    digest(&collapse);
    assert!(
        collapse.contains("  1. tap 0,1 colour B cleared 4 score 80"),
        "{collapse}"
    );
}
