//! Small text helpers shared by the tools' renderings.

/// At most `max` bytes of `text` (on a char boundary), with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

/// Keeps the first `head` and last `tail` bytes of `text` (on char boundaries), marking what was
/// left out. Command output keeps its end: that is where failures are reported.
pub fn head_tail(text: &str, head: usize, tail: usize) -> String {
    if text.len() <= head + tail {
        return text.to_owned();
    }
    let mut h = head;
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = text.len() - tail;
    while !text.is_char_boundary(t) {
        t += 1;
    }
    format!(
        "{}\n[… {} bytes left out …]\n{}",
        &text[..h],
        t - h,
        &text[t..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip("héllo", 2), "h…");
        assert_eq!(clip("abc", 10), "abc");
    }

    #[test]
    fn head_tail_keeps_both_ends() {
        let text = "a".repeat(10) + &"b".repeat(10);
        assert_eq!(head_tail(&text, 3, 3), "aaa\n[… 14 bytes left out …]\nbbb");
        assert_eq!(head_tail("short", 3, 3), "short");
    }
}
