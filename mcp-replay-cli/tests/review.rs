//! `mcp-replay review`, `accept` and `reject` on pending `NAME.jsonl.new` files: through a
//! real pseudo-terminal (keys written to it, the screen read back), without one, and on
//! bad input (a pending file that does not parse, one whose fixture was deleted, two for
//! one fixture, a terminal too narrow). Accepting never loses a fixture.
#![cfg(unix)]

mod common;

use common::{mcp_replay, temp_dir, MCP_REPLAY};
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LIST: &str = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#;

/// A fixture of one `tools/list` whose answer lists `tools` (name, description).
fn listing(tools: &[(&str, &str)]) -> String {
    let tools: Vec<String> = tools
        .iter()
        .map(|(name, description)| {
            format!(
                r#"{{"name":"{name}","description":"{description}","inputSchema":{{"type":"object"}}}}"#
            )
        })
        .collect();
    format!(
        "{LIST}\n{{\"direction\":\"server->client\",\"message\":{{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"result\":{{\"tools\":[{}]}}}}}}\n",
        tools.join(",")
    )
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// A folder of four pending files: `a` (a tool removed, a description changed), `b` (a
/// description changed), `c` (its fixture deleted), `d` (the pending file does not parse).
fn four_pending(name: &str) -> std::path::PathBuf {
    let dir = temp_dir("review", name);
    let old = listing(&[("add", "Adds"), ("sub", "Subtracts")]);
    write(&dir.join("a.jsonl"), &old);
    write(
        &dir.join("a.jsonl.new"),
        &listing(&[("add", "Adds two numbers")]),
    );
    write(&dir.join("b.jsonl"), &old);
    write(
        &dir.join("b.jsonl.new"),
        &listing(&[("add", "Adds"), ("sub", "Takes away")]),
    );
    write(&dir.join("c.jsonl.new"), &old);
    write(&dir.join("d.jsonl"), &old);
    write(
        &dir.join("d.jsonl.new"),
        &format!("{LIST}\n{{\"direction\":"),
    );
    dir
}

/// The command on a new pseudo-terminal `columns` wide: what it draws is read back as it
/// comes, keys are written to it.
struct Screen {
    child: std::process::Child,
    master: std::fs::File,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl Screen {
    fn start(args: &[&str], dir: &Path, columns: u16) -> Screen {
        let (mut master, mut slave) = (-1, -1);
        let size = libc::winsize {
            ws_row: 50,
            ws_col: columns,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes the two descriptors; the size is read.
        let opened = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors are ours alone from here on.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut command = std::process::Command::new(MCP_REPLAY);
        command
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS")
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe: the child leads a session of its own, with
        // the pseudo-terminal as its terminal, as in a terminal window.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY, 0);
                Ok(())
            });
        }
        let child = command.spawn().expect("the command starts");
        let master = std::fs::File::from(master);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let sink = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Screen {
            child,
            master,
            seen,
        }
    }

    /// Everything drawn so far, without the terminal's carriage returns.
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).replace('\r', "")
    }

    /// Waits until `text` has been drawn `times` times in all.
    fn wait_for(&self, text: &str, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.text().matches(text).count() < times {
            assert!(
                Instant::now() < deadline,
                "waited for {text:?} x{times}; the screen:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn key(&mut self, key: &[u8]) {
        self.master.write_all(key).unwrap();
    }

    /// The exit status, once the command ended.
    fn finish(mut self) -> (i32, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                return (status.code().unwrap_or(-1), self.text());
            }
            assert!(Instant::now() < deadline, "still running:\n{}", self.text());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The command with `args` in `dir`, without a terminal.
fn in_dir(dir: &Path, args: &[&str]) -> std::process::Output {
    mcp_replay().args(args).current_dir(dir).output().unwrap()
}

const KEYS: &str = "a accept · r reject · s skip · q quit >";
const REFUSED_KEYS: &str = "r reject · s skip · q quit (it cannot be accepted) >";

#[test]
fn review_one_pending_file_at_a_time_with_keys_in_a_real_terminal() {
    let dir = four_pending("keys");
    let a_new = read(&dir.join("a.jsonl.new"));
    let b_old = read(&dir.join("b.jsonl"));
    let d_old = read(&dir.join("d.jsonl"));
    let mut screen = Screen::start(&["review", "."], &dir, 100);

    // a: the contract view, most severe first, then the messages; accepted.
    screen.wait_for(KEYS, 1);
    let first = screen.text();
    assert!(first.contains("1/4 ./a.jsonl"), "{first}");
    let breaking = first.find("breaking").expect("a breaking change");
    let cosmetic = first.find("cosmetic").expect("a cosmetic change");
    assert!(breaking < cosmetic, "most severe first:\n{first}");
    assert!(
        first.contains("The messages (- fixture, + pending):"),
        "{first}"
    );
    assert!(
        first.contains("-   2 ") && first.contains("+   2 "),
        "{first}"
    );
    screen.key(b"a");
    screen.wait_for("accepted ./a.jsonl.new -> ./a.jsonl", 1);

    // b: an unknown key asks again; rejected.
    screen.wait_for(KEYS, 2);
    assert!(screen.text().contains("2/4 ./b.jsonl"));
    screen.key(b"x");
    screen.wait_for(KEYS, 3);
    screen.key(b"r");
    screen.wait_for("rejected ./b.jsonl.new", 1);

    // c: its fixture was deleted; skipped.
    screen.wait_for(KEYS, 4);
    assert!(
        screen
            .text()
            .contains("./c.jsonl no longer exists: accepting makes the pending recording (2 messages) the fixture again"),
        "{}",
        screen.text()
    );
    screen.key(b"s");

    // d: does not parse, so it cannot be accepted: `a` does nothing; quit.
    screen.wait_for(REFUSED_KEYS, 1);
    let text = screen.text();
    assert!(
        text.contains("./d.jsonl.new cannot be accepted: ./d.jsonl.new:2:"),
        "names file, line and column:\n{text}"
    );
    screen.key(b"a");
    screen.wait_for(REFUSED_KEYS, 2);
    screen.key(b"q");

    let (status, text) = screen.finish();
    assert_eq!(status, 0, "{text}");
    assert!(
        text.contains("review: 1 accepted, 1 rejected, 2 skipped"),
        "{text}"
    );
    assert!(
        text.contains("still pending: ./c.jsonl.new")
            && text.contains("still pending: ./d.jsonl.new")
    );
    assert_eq!(read(&dir.join("a.jsonl")), a_new);
    assert!(!dir.join("a.jsonl.new").exists() && !dir.join("b.jsonl.new").exists());
    assert_eq!(read(&dir.join("b.jsonl")), b_old);
    assert!(dir.join("c.jsonl.new").exists() && !dir.join("c.jsonl").exists());
    assert_eq!(
        read(&dir.join("d.jsonl")),
        d_old,
        "a broken pending file never replaces a fixture"
    );
    assert!(dir.join("d.jsonl.new").exists());
}

#[test]
fn quit_with_ctrl_c_leaving_the_rest_pending_and_the_terminal_as_it_was() {
    let dir = four_pending("ctrl-c");
    let mut screen = Screen::start(&["review"], &dir, 100);
    // No PATH: fixtures/ and tests/fixtures/ do not exist here, so nothing is pending.
    let (status, text) = {
        screen.wait_for("no pending .jsonl.new files", 1);
        screen.key(b"");
        screen.finish()
    };
    assert_eq!(status, 0, "{text}");

    let mut screen = Screen::start(&["review", "."], &dir, 100);
    screen.wait_for(KEYS, 1);
    screen.key(b"\x03");
    let (status, text) = screen.finish();
    assert_eq!(status, 0, "{text}");
    assert!(
        text.contains("review: 0 accepted, 0 rejected, 4 skipped"),
        "{text}"
    );
    for name in ["a", "b", "c", "d"] {
        assert!(dir.join(format!("{name}.jsonl.new")).exists());
    }
}

#[test]
fn refuse_a_terminal_too_narrow_to_draw_in_and_change_nothing() {
    let dir = four_pending("narrow");
    let screen = Screen::start(&["review", "."], &dir, 40);
    let (status, text) = screen.finish();
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("the terminal is 40 columns wide; review needs 60"),
        "{text}"
    );
    assert!(dir.join("a.jsonl.new").exists() && dir.join("b.jsonl.new").exists());
}

#[test]
fn list_the_pending_files_without_a_terminal_and_exit_1() {
    let dir = four_pending("no-tty");
    let out = in_dir(&dir, &["review", "."]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for name in ["a", "b", "c", "d"] {
        assert!(
            stdout.contains(&format!(
                "pending: ./{name}.jsonl.new (fixture ./{name}.jsonl)"
            )),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("4 pending: review them in a terminal"),
        "{stdout}"
    );
    // Nothing pending: exit 0.
    let empty = temp_dir("review", "no-tty-empty");
    let out = in_dir(&empty, &["review", "."]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn accept_or_reject_only_the_files_a_path_names_for_scripts() {
    let dir = four_pending("filter");
    let b_new = read(&dir.join("b.jsonl.new"));
    let out = in_dir(&dir, &["review", "--accept", "b.jsonl", "c.jsonl.new"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("accepted b.jsonl.new -> b.jsonl\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("accepted c.jsonl.new -> c.jsonl (a new fixture)"),
        "{stdout}"
    );
    assert_eq!(read(&dir.join("b.jsonl")), b_new);
    assert!(dir.join("a.jsonl.new").exists(), "a was not named");

    let out = in_dir(&dir, &["review", "--reject", "a.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!dir.join("a.jsonl.new").exists());
}

#[test]
fn accept_the_rest_but_never_a_pending_file_that_does_not_load_and_exit_2() {
    let dir = four_pending("broken");
    let d_old = read(&dir.join("d.jsonl"));
    let out = in_dir(&dir, &["accept", "."]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("./d.jsonl.new not accepted: ./d.jsonl.new:2:"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("accepted ").count(), 3, "{stdout}");
    assert_eq!(read(&dir.join("d.jsonl")), d_old);
    assert!(dir.join("d.jsonl.new").exists());
    // A pending file holding a secret is not accepted either.
    write(
        &dir.join("d.jsonl.new"),
        &format!(
            "{LIST}\n{{\"direction\":\"server->client\",\"message\":{{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"result\":{{\"token\":\"ghp_{}\"}}}}}}\n",
            "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
        ),
    );
    let out = in_dir(&dir, &["accept", "d.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(read(&dir.join("d.jsonl")), d_old);
}

#[test]
fn accept_neither_of_two_pending_files_for_one_fixture() {
    let dir = temp_dir("review", "rivals");
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    let old = listing(&[("add", "Adds")]);
    write(&dir.join("shared/add.jsonl"), &old);
    std::os::unix::fs::symlink("../shared/add.jsonl", dir.join("fixtures/add.jsonl")).unwrap();
    write(
        &dir.join("shared/add.jsonl.new"),
        &listing(&[("add", "One")]),
    );
    write(
        &dir.join("fixtures/add.jsonl.new"),
        &listing(&[("add", "Two")]),
    );
    let out = in_dir(&dir, &["accept", "."]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.matches("are both pending for the fixture").count(),
        2,
        "{stderr}"
    );
    assert_eq!(read(&dir.join("shared/add.jsonl")), old);
    // One rejected, the other is accepted, through the link: the link stays a link.
    let out = in_dir(&dir, &["reject", "shared/add.jsonl.new"]);
    assert_eq!(out.status.code(), Some(0));
    let out = in_dir(&dir, &["accept", "."]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::symlink_metadata(dir.join("fixtures/add.jsonl"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(read(&dir.join("shared/add.jsonl")).contains("\"Two\""));
}
