//! The terminal `review` talks to: whether there is one, how wide it is, and one key at a
//! time without echo (the terminal is given back as it was, also when reading fails).
//! Unix only; elsewhere `review` takes whole lines.

use std::io::{IsTerminal, Read};

/// Whether both stdin and stdout are a terminal: someone can answer.
pub(crate) fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// The width of the terminal on stdout in columns, else `COLUMNS`, else 80.
pub(crate) fn width() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ writes a `winsize` into the one we give it, nothing else.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        if unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0
            && size.ws_col > 0
        {
            return usize::from(size.ws_col);
        }
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c| c > 0)
        .unwrap_or(80)
}

/// One key from stdin: in non-canonical mode without echo on Unix, so the key is taken
/// when it is pressed; `None` at the end of input. Ctrl-C and Ctrl-D come back as the
/// bytes 3 and 4 (the terminal does not turn them into a signal or the end of input
/// while a key is read), so that the caller quits cleanly.
pub(crate) fn read_key() -> Option<u8> {
    let _raw = Raw::enter();
    let mut byte = [0u8; 1];
    match std::io::stdin().lock().read(&mut byte) {
        Ok(1) => Some(byte[0]),
        _ => None,
    }
}

/// The terminal in the mode [`read_key`] needs, until dropped.
struct Raw {
    #[cfg(unix)]
    saved: Option<libc::termios>,
}

impl Raw {
    #[cfg(unix)]
    fn enter() -> Raw {
        // SAFETY: tcgetattr/tcsetattr read and write the `termios` given, on stdin.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return Raw { saved: None };
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &raw) != 0 {
                return Raw { saved: None };
            }
            Raw { saved: Some(saved) }
        }
    }

    #[cfg(not(unix))]
    fn enter() -> Raw {
        Raw {}
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(saved) = &self.saved {
            // SAFETY: as in `enter`; the settings read there.
            unsafe {
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, saved);
            }
        }
    }
}
