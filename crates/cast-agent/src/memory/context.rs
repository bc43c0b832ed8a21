//! Keeping a conversation inside a context budget: long file contents are cut with a marker that
//! says how to read the rest; when the conversation is still too long, the oldest tool results
//! are dropped first, then steps beyond the last ten. The task (the first user message) is
//! always kept, and a tool call is never separated from its result.

use crate::llm::{Message, Role};

/// Limits for what is sent to the model.
#[derive(Debug, Clone, Copy)]
pub struct ContextBudget {
    /// Estimated tokens for the system prompt plus the messages.
    pub max_tokens: usize,
    /// Steps (an assistant message and its tool results) always kept.
    pub keep_steps: usize,
    /// Characters of one tool result (a file's content) before it is cut.
    pub max_result_chars: usize,
}

impl Default for ContextBudget {
    fn default() -> Self {
        ContextBudget {
            max_tokens: 100_000,
            keep_steps: 10,
            max_result_chars: 50_000,
        }
    }
}

/// Tokens are estimated as bytes / 4 (rounded up): close for English and code with
/// OpenAI's and Anthropic's tokenizers, and it never needs a model-specific vocabulary.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

fn message_tokens(m: &Message) -> usize {
    estimate_tokens(&m.content)
        + m.tool_calls
            .iter()
            .map(|c| estimate_tokens(&c.arguments) + 8)
            .sum::<usize>()
        + 4
}

/// Estimated tokens of a request.
pub fn request_tokens(system: &str, messages: &[Message]) -> usize {
    estimate_tokens(system) + messages.iter().map(message_tokens).sum::<usize>()
}

/// Cuts a long text (a file's content in a tool result) at `max_chars`, saying how to get the rest.
pub fn cut_file_text(text: &str, max_chars: usize, what: &str) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max_chars).collect();
    let shown_lines = cut.lines().count();
    format!(
        "{cut}\n[… cut at {max_chars} characters ({shown_lines} lines shown) of {what}; read the rest with read_file and start_line={}]",
        shown_lines + 1
    )
}

/// What trimming did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trimmed {
    pub results_dropped: usize,
    pub steps_dropped: usize,
}

const DROPPED: &str =
    "[older tool result dropped to fit the context budget; call the tool again if you need it]";

/// Trims `messages` so that the request fits `budget.max_tokens`.
pub fn trim(system: &str, messages: &mut Vec<Message>, budget: &ContextBudget) -> Trimmed {
    let mut done = Trimmed::default();
    let over = |messages: &[Message]| request_tokens(system, messages) > budget.max_tokens;
    if !over(messages) {
        return done;
    }
    // Steps start at assistant messages; the last `keep_steps` are protected.
    let step_starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::Assistant)
        .map(|(i, _)| i)
        .collect();
    let protected_from = step_starts
        .len()
        .checked_sub(budget.keep_steps)
        .and_then(|i| step_starts.get(i).copied())
        .unwrap_or(0);
    // 1. The oldest tool results, outside the protected steps.
    for i in 0..protected_from {
        if !over(messages) {
            return done;
        }
        if messages[i].role == Role::Tool && messages[i].content != DROPPED {
            messages[i].content = DROPPED.to_owned();
            done.results_dropped += 1;
        }
    }
    // 2. Whole steps beyond the last `keep_steps`, oldest first (the first message, the task,
    //    stays; an assistant message goes with its tool results).
    while over(messages) {
        let Some(start) = messages.iter().position(|m| m.role == Role::Assistant) else {
            break;
        };
        let remaining_steps = messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        if remaining_steps <= budget.keep_steps {
            break;
        }
        let mut end = start + 1;
        while end < messages.len() && messages[end].role == Role::Tool {
            end += 1;
        }
        messages.drain(start..end);
        done.steps_dropped += 1;
    }
    if done.steps_dropped > 0 {
        let note = format!(
            "[{} earlier step(s) were dropped to fit the context budget]",
            done.steps_dropped
        );
        let at = messages
            .iter()
            .position(|m| m.role == Role::Assistant)
            .unwrap_or(messages.len());
        if at > 0
            && messages[at - 1].role == Role::User
            && messages[at - 1].content.starts_with('[')
        {
            messages[at - 1].content = note;
        } else {
            messages.insert(at, Message::user(note));
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;

    fn step(i: usize, result_len: usize) -> Vec<Message> {
        let call = ToolCall {
            id: format!("c{i}"),
            name: "read_file".into(),
            arguments: "{}".into(),
        };
        vec![
            Message::assistant(format!("step {i}"), vec![call.clone()]),
            Message::tool_result(&call, "x".repeat(result_len), false),
        ]
    }

    #[test]
    fn long_results_are_cut_with_directions() {
        let text = "line\n".repeat(20_000);
        let cut = cut_file_text(&text, 50_000, "a.py");
        assert!(cut.len() < 50_300);
        assert!(
            cut.contains("read the rest with read_file and start_line=10001"),
            "{}",
            &cut[cut.len() - 200..]
        );
        assert_eq!(cut_file_text("short", 50_000, "a.py"), "short");
    }

    #[test]
    fn oldest_results_go_first_then_old_steps() {
        let mut messages = vec![Message::user("the task")];
        for i in 0..30 {
            messages.extend(step(i, 4_000));
        }
        let budget = ContextBudget {
            max_tokens: 20_000,
            keep_steps: 10,
            max_result_chars: 50_000,
        };
        let before = request_tokens("sys", &messages);
        assert!(before > 30_000);
        let done = trim("sys", &mut messages, &budget);
        assert!(
            request_tokens("sys", &messages) <= budget.max_tokens,
            "{done:?}"
        );
        assert!(done.results_dropped > 0);
        assert_eq!(messages[0].content, "the task");
        // the last ten steps are intact
        let tail: Vec<&Message> = messages.iter().rev().take(20).collect();
        assert!(tail.iter().all(|m| m.content != DROPPED));
        // every tool result still follows its call
        for (i, m) in messages.iter().enumerate() {
            if m.role == Role::Tool {
                let call_id = m.tool_call_id.clone().unwrap();
                let owner = messages[..i]
                    .iter()
                    .rev()
                    .find(|p| p.role == Role::Assistant)
                    .unwrap();
                assert!(owner.tool_calls.iter().any(|c| c.id == call_id));
            }
        }
    }

    #[test]
    fn whole_steps_are_dropped_when_dropping_results_is_not_enough() {
        let mut messages = vec![Message::user("the task")];
        for i in 0..40 {
            messages.extend(step(i, 10));
            let at = messages.len() - 2;
            messages[at].content = "y".repeat(2_000); // long reasoning
        }
        let budget = ContextBudget {
            max_tokens: 8_000,
            keep_steps: 10,
            max_result_chars: 50_000,
        };
        let done = trim("sys", &mut messages, &budget);
        assert!(done.steps_dropped > 0, "{done:?}");
        assert!(request_tokens("sys", &messages) <= budget.max_tokens);
        assert_eq!(messages[0].content, "the task");
        assert!(messages[1].content.contains("earlier step(s) were dropped"));
        assert_eq!(
            messages
                .iter()
                .filter(|m| m.role == Role::Assistant)
                .count(),
            40 - done.steps_dropped
        );
    }
}
