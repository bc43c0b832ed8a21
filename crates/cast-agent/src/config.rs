//! Which model to use, from (highest first) command-line flags, the environment
//! (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`,
//! `CAST_PROVIDER`, `CAST_MODEL`, `CAST_PROTOCOL`), `ROOT/.cast/config.toml`, and
//! `~/.config/cast/config.toml`.
//!
//! A config file:
//!
//! ```toml
//! [model]
//! provider = "openai"                    # "openai" (any OpenAI-compatible server) or "anthropic"
//! name = "qwen2.5-coder:14b"
//! base_url = "http://localhost:11434/v1" # a local Ollama
//! # api_key = "…"                        # better kept in the environment
//! protocol = "native"                    # "text" for models without tool calls
//! stream = true
//! timeout_s = 300
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::llm::{Anthropic, Http, Llm, OpenAi, Provider, RetryPolicy};

/// `[model]` in a config file; every field optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    pub provider: Option<String>,
    pub name: Option<String>,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub protocol: Option<String>,
    pub stream: Option<bool>,
    pub timeout_s: Option<u64>,
    pub retries: Option<u32>,
}

/// `[sandbox]` in a config file: how commands run for the model are confined.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSection {
    /// `read-only`, `workspace-write` or `danger-full-access`.
    pub mode: Option<String>,
}

/// A config file. Unknown sections are kept for other parts of CAST; unknown keys in `[model]`
/// and `[sandbox]` are refused so typos do not go unnoticed.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ConfigFile {
    #[serde(default)]
    pub model: ModelSection,
    #[serde(default)]
    pub sandbox: SandboxSection,
    #[serde(default)]
    pub agent: toml::Table,
}

/// Flags given on the command line.
#[derive(Debug, Clone, Default)]
pub struct ModelFlags {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub protocol: Option<String>,
    pub no_stream: bool,
}

/// Why no model could be set up.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "no language model is configured. Set one of:\n  OPENAI_API_KEY=sk-…  [CAST_MODEL=gpt-4.1-mini]                   (OpenAI)\n  ANTHROPIC_API_KEY=…  [CAST_MODEL=claude-sonnet-4-5]              (Anthropic)\n  OPENAI_BASE_URL=http://localhost:11434/v1 CAST_MODEL=qwen2.5-coder  (a local Ollama; any OpenAI-compatible server works: vLLM, llama.cpp, LM Studio)\nor write a [model] section in .cast/config.toml or ~/.config/cast/config.toml (see `cast run --help`)."
    )]
    NotConfigured,
    #[error(
        "unknown provider {0:?}: use \"openai\" (any OpenAI-compatible server) or \"anthropic\""
    )]
    UnknownProvider(String),
    #[error(
        "unknown protocol {0:?}: use \"native\" (tool calls) or \"text\" (tools described in the prompt)"
    )]
    UnknownProtocol(String),
    #[error(
        "no model name for {base_url}: set CAST_MODEL or --model (e.g. the name `ollama list` shows)"
    )]
    NoModel { base_url: String },
    #[error("no API key for {provider}: set {variable}")]
    NoKey {
        provider: &'static str,
        variable: &'static str,
    },
    #[error("cannot read {path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
    #[error(transparent)]
    Http(#[from] crate::llm::LlmError),
}

const OPENAI_URL: &str = "https://api.openai.com/v1";
const ANTHROPIC_URL: &str = "https://api.anthropic.com";

/// Reads a config file if it exists.
pub fn read_file(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ConfigError::BadFile {
                path: path.to_owned(),
                reason: e.to_string(),
            });
        }
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|e| ConfigError::BadFile {
            path: path.to_owned(),
            reason: e.to_string(),
        })
}

/// The config files that apply to a workspace, most specific first.
pub fn config_files(root: &Path) -> Result<Vec<ConfigFile>, ConfigError> {
    let mut files = Vec::new();
    if let Some(project) = read_file(&project_config_path(root))? {
        files.push(project);
    }
    if let Some(path) = user_config_path()
        && let Some(user) = read_file(&path)?
    {
        files.push(user);
    }
    Ok(files)
}

/// The workspace's own config file, `ROOT/.cast/config.toml`.
pub fn project_config_path(root: &Path) -> PathBuf {
    root.join(".cast/config.toml")
}

/// The user's config file, `~/.config/cast/config.toml` (where the platform keeps configs).
pub fn user_config_path() -> Option<PathBuf> {
    dirs::config_dir().map(|dir| dir.join("cast/config.toml"))
}

/// Builds the model client from flags, an environment lookup and config files (most specific
/// first).
pub fn resolve(
    flags: &ModelFlags,
    env: &dyn Fn(&str) -> Option<String>,
    files: &[ConfigFile],
) -> Result<Llm, ConfigError> {
    let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let file =
        |get: &dyn Fn(&ModelSection) -> Option<String>| files.iter().find_map(|f| get(&f.model));
    let provider = flags
        .provider
        .clone()
        .or_else(|| env("CAST_PROVIDER"))
        .or_else(|| file(&|m| m.provider.clone()))
        .or_else(|| {
            // No provider named: infer it, most specific setting first. A base URL alone means
            // the OpenAI-compatible protocol (Ollama, vLLM, llama.cpp, LM Studio all speak it).
            if flags.base_url.is_some()
                || env("OPENAI_API_KEY").is_some()
                || env("OPENAI_BASE_URL").is_some()
            {
                Some("openai".to_owned())
            } else if env("ANTHROPIC_API_KEY").is_some() || env("ANTHROPIC_BASE_URL").is_some() {
                Some("anthropic".to_owned())
            } else if files.iter().any(|f| f.model.base_url.is_some()) {
                Some("openai".to_owned())
            } else {
                None
            }
        })
        .ok_or(ConfigError::NotConfigured)?;
    let model = flags
        .model
        .clone()
        .or_else(|| env("CAST_MODEL"))
        .or_else(|| file(&|m| m.name.clone()));
    let protocol = flags
        .protocol
        .clone()
        .or_else(|| env("CAST_PROTOCOL"))
        .or_else(|| file(&|m| m.protocol.clone()))
        .unwrap_or_else(|| "native".to_owned());
    let text_protocol = match protocol.as_str() {
        "native" => false,
        "text" => true,
        other => return Err(ConfigError::UnknownProtocol(other.to_owned())),
    };
    let stream = !flags.no_stream && files.iter().find_map(|f| f.model.stream).unwrap_or(true);
    let timeout = files.iter().find_map(|f| f.model.timeout_s).unwrap_or(300);
    let retries = files.iter().find_map(|f| f.model.retries).unwrap_or(3);
    let provider = match provider.to_ascii_lowercase().as_str() {
        "openai" | "openai-compatible" | "ollama" | "vllm" => {
            let base_url = flags
                .base_url
                .clone()
                .or_else(|| env("OPENAI_BASE_URL"))
                .or_else(|| file(&|m| m.base_url.clone()))
                .unwrap_or_else(|| OPENAI_URL.to_owned());
            let api_key = env("OPENAI_API_KEY").or_else(|| file(&|m| m.api_key.clone()));
            let official = base_url.trim_end_matches('/') == OPENAI_URL;
            if official && api_key.is_none() {
                return Err(ConfigError::NoKey {
                    provider: "OpenAI",
                    variable: "OPENAI_API_KEY",
                });
            }
            let model = match model {
                Some(model) => model,
                None if official => "gpt-4.1-mini".to_owned(),
                None => return Err(ConfigError::NoModel { base_url }),
            };
            Provider::OpenAi(OpenAi {
                base_url,
                api_key,
                model,
                stream,
            })
        }
        "anthropic" | "claude" => {
            let base_url = flags
                .base_url
                .clone()
                .or_else(|| env("ANTHROPIC_BASE_URL"))
                .or_else(|| file(&|m| m.base_url.clone()))
                .unwrap_or_else(|| ANTHROPIC_URL.to_owned());
            let api_key = env("ANTHROPIC_API_KEY").or_else(|| file(&|m| m.api_key.clone()));
            if base_url.trim_end_matches('/') == ANTHROPIC_URL && api_key.is_none() {
                return Err(ConfigError::NoKey {
                    provider: "Anthropic",
                    variable: "ANTHROPIC_API_KEY",
                });
            }
            let model = model.unwrap_or_else(|| "claude-sonnet-4-5".to_owned());
            Provider::Anthropic(Anthropic {
                base_url,
                api_key,
                model,
            })
        }
        other => return Err(ConfigError::UnknownProvider(other.to_owned())),
    };
    let http = Http::new(
        Duration::from_secs(timeout),
        RetryPolicy {
            attempts: retries + 1,
            ..RetryPolicy::default()
        },
    )?;
    Ok(Llm {
        provider,
        http,
        text_protocol,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn nothing_configured_says_what_to_set() {
        let err = resolve(&ModelFlags::default(), &env_of(&[]), &[]).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ConfigError::NotConfigured));
        for needle in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "OPENAI_BASE_URL",
            "CAST_MODEL",
            "Ollama",
            "config.toml",
        ] {
            assert!(msg.contains(needle), "{needle} missing from: {msg}");
        }
    }

    #[test]
    fn flags_beat_environment_beat_files() {
        let file: ConfigFile = toml::from_str(
            "[model]\nprovider = \"openai\"\nname = \"from-file\"\nbase_url = \"http://file/v1\"\n",
        )
        .unwrap();
        let env = env_of(&[
            ("CAST_MODEL", "from-env"),
            ("OPENAI_BASE_URL", "http://env/v1"),
        ]);
        let llm = resolve(&ModelFlags::default(), &env, std::slice::from_ref(&file)).unwrap();
        assert_eq!(llm.model(), "from-env");
        let Provider::OpenAi(p) = &llm.provider else {
            panic!()
        };
        assert_eq!(p.base_url, "http://env/v1");
        let flags = ModelFlags {
            model: Some("from-flag".into()),
            ..Default::default()
        };
        assert_eq!(
            resolve(&flags, &env, std::slice::from_ref(&file))
                .unwrap()
                .model(),
            "from-flag"
        );
        assert_eq!(
            resolve(&ModelFlags::default(), &env_of(&[]), &[file])
                .unwrap()
                .model(),
            "from-file"
        );
    }

    #[test]
    fn a_local_server_needs_a_model_but_no_key() {
        let env = env_of(&[("OPENAI_BASE_URL", "http://localhost:11434/v1")]);
        assert!(matches!(
            resolve(&ModelFlags::default(), &env, &[]),
            Err(ConfigError::NoModel { .. })
        ));
        let env = env_of(&[
            ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
            ("CAST_MODEL", "qwen"),
        ]);
        assert!(resolve(&ModelFlags::default(), &env, &[]).is_ok());
    }

    #[test]
    fn a_base_url_flag_alone_means_an_openai_compatible_server() {
        let flags = ModelFlags {
            base_url: Some("http://localhost:8000/v1".into()),
            model: Some("local".into()),
            ..Default::default()
        };
        // Even with an Anthropic key in the environment: the flag is more specific.
        let llm = resolve(&flags, &env_of(&[("ANTHROPIC_API_KEY", "k")]), &[]).unwrap();
        let Provider::OpenAi(p) = &llm.provider else {
            panic!("{llm:?}")
        };
        assert_eq!(
            (p.base_url.as_str(), llm.model()),
            ("http://localhost:8000/v1", "local")
        );
        // A base URL in a config file alone, likewise.
        let file: ConfigFile =
            toml::from_str("[model]\nname = \"m\"\nbase_url = \"http://file/v1\"\n").unwrap();
        let llm = resolve(&ModelFlags::default(), &env_of(&[]), &[file]).unwrap();
        assert!(matches!(llm.provider, Provider::OpenAi(_)), "{llm:?}");
    }

    #[test]
    fn anthropic_is_chosen_by_its_key() {
        let llm = resolve(
            &ModelFlags::default(),
            &env_of(&[("ANTHROPIC_API_KEY", "k")]),
            &[],
        )
        .unwrap();
        assert!(matches!(llm.provider, Provider::Anthropic(_)));
    }

    #[test]
    fn typos_in_the_model_section_are_refused() {
        assert!(toml::from_str::<ConfigFile>("[model]\nmodle = \"x\"\n").is_err());
    }
}
