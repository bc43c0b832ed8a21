//! Assembling an agent: the workspace, the model (flags > environment > config files), the tool
//! set (commands, read-only, a skill's tools) and the system prompt. `cast run`, `cast chat` and
//! the skills all build their agent here.

use std::path::Path;
use std::sync::Arc;

use cast_tools::{EditMode, Registry, RegistryOptions, SandboxError, ToolContext};

use crate::agent::{Agent, AgentConfig};
use crate::config::{self, ConfigError, ModelFlags};
use crate::llm::Llm;
use crate::prompt::{self, PromptParts};
use crate::skills::Skill;

/// Why an agent could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The workspace root does not exist or cannot be used.
    #[error(transparent)]
    Workspace(#[from] SandboxError),
    /// A config file could not be read.
    #[error(transparent)]
    ConfigFile(ConfigError),
    /// No usable model is configured; the message says what to set.
    #[error(transparent)]
    Model(ConfigError),
}

/// Builds an [`Agent`] step by step. [`AgentBuilder::new`] settles what can fail — the
/// workspace and the model — so a front end can report a missing model before doing anything
/// else; [`AgentBuilder::build`] then assembles the tools and the prompt (which maps the
/// workspace).
///
/// ```no_run
/// use cast_agent::{AgentBuilder, AgentConfig};
/// use cast_agent::config::ModelFlags;
///
/// let flags = ModelFlags {
///     base_url: Some("http://localhost:11434/v1".into()),
///     model: Some("qwen2.5-coder".into()),
///     ..ModelFlags::default()
/// };
/// let agent = AgentBuilder::new(".", &flags)?
///     .config(AgentConfig { max_steps: 10, ..AgentConfig::default() })
///     .build();
/// # Ok::<(), cast_agent::BuildError>(())
/// ```
#[derive(Debug)]
pub struct AgentBuilder {
    ctx: ToolContext,
    llm: Llm,
    commands: bool,
    read_only: bool,
    config: AgentConfig,
    skill: Option<Skill>,
    preferences: Vec<(String, String)>,
    task: Option<String>,
}

impl AgentBuilder {
    /// An agent over the workspace at `root` with the standard tools and prompt, and the model
    /// the flags ask for — the flags win over the environment (`OPENAI_API_KEY`,
    /// `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `CAST_PROVIDER`, `CAST_MODEL`, …), which wins
    /// over `ROOT/.cast/config.toml`, which wins over `~/.config/cast/config.toml`.
    pub fn new(root: impl AsRef<Path>, flags: &ModelFlags) -> Result<Self, BuildError> {
        let ctx = ToolContext::new(root)?;
        let files = config::config_files(ctx.workspace.root()).map_err(BuildError::ConfigFile)?;
        let llm = config::resolve(flags, &|k| std::env::var(k).ok(), &files)
            .map_err(BuildError::Model)?;
        Ok(Self::with_llm(ctx, llm))
    }

    /// An agent over a workspace with a model client made elsewhere.
    pub fn with_llm(ctx: ToolContext, llm: Llm) -> Self {
        AgentBuilder {
            ctx,
            llm,
            commands: false,
            read_only: false,
            config: AgentConfig::default(),
            skill: None,
            preferences: Vec::new(),
            task: None,
        }
    }

    /// The task the agent starts with: the standard prompt's map is focused on it (the files
    /// and symbols it is about first).
    pub fn task(mut self, task: &str) -> Self {
        self.task = Some(task.to_owned());
        self
    }

    /// The workspace root (resolved).
    pub fn root(&self) -> &Path {
        self.ctx.workspace.root()
    }

    /// How the commands run for the model are confined (`run_command`, the test command).
    pub fn sandbox(mut self, sandbox: cast_tools::cast_sandbox::Sandbox) -> Self {
        self.ctx.sandbox = sandbox;
        self
    }

    /// Offer `run_command`.
    pub fn allow_commands(mut self, yes: bool) -> Self {
        self.commands = yes;
        self
    }

    /// Refuse edits that leave a file which parses unparseable (by default they are applied
    /// and the result says what broke).
    pub fn refuse_syntax_errors(mut self, yes: bool) -> Self {
        self.ctx.refuse_syntax_errors = yes;
        self
    }

    /// Offer no tool that changes anything, and refuse writes in the tools that remain.
    pub fn read_only(mut self, yes: bool) -> Self {
        self.read_only = yes;
        self
    }

    /// Limits, approvals, the test command.
    pub fn config(mut self, config: AgentConfig) -> Self {
        self.config = config;
        self
    }

    /// A skill's preset: its role and rules in the prompt, and only its tools.
    pub fn skill(mut self, skill: &Skill) -> Self {
        self.skill = Some(*skill);
        self
    }

    /// The user's remembered preferences, added to the rules of the standard prompt.
    pub fn preferences(mut self, preferences: Vec<(String, String)>) -> Self {
        self.preferences = preferences;
        self
    }

    /// The agent: the tool set and the system prompt (with the workspace's map).
    pub fn build(self) -> Agent {
        let mut ctx = self.ctx.clone();
        let mut registry = Registry::standard(RegistryOptions {
            commands: self.commands,
        });
        if self.read_only {
            ctx.edit_mode = EditMode::ReadOnly;
            for name in registry.names() {
                if registry.get(name).is_some_and(|t| !t.read_only()) {
                    registry.remove(name);
                }
            }
        }
        if let Some(skill) = &self.skill {
            for name in registry.names() {
                if !skill.tools.contains(&name) {
                    registry.remove(name);
                }
            }
        }
        let system = self.system_prompt(&registry, &ctx);
        Agent {
            llm: self.llm,
            registry: Arc::new(registry),
            ctx: Arc::new(ctx),
            config: self.config,
            system,
        }
    }

    fn system_prompt(&self, registry: &Registry, ctx: &ToolContext) -> String {
        let budget = self.config.map_budget;
        if let Some(skill) = &self.skill {
            return PromptParts {
                role: skill.role.to_owned(),
                rules: format!("{}\n\n{}", prompt::RULES, skill.rules),
                tools: prompt::tool_list(registry),
                workspace: prompt::workspace_overview(registry, ctx, budget),
                example: prompt::EXAMPLE.to_owned(),
            }
            .render();
        }
        let mut parts = prompt::standard_for_task(registry, ctx, budget, self.task.as_deref());
        if !self.preferences.is_empty() {
            parts
                .rules
                .push_str("\n\n# The user's preferences (follow them)");
            for (key, value) in &self.preferences {
                parts.rules.push_str(&format!("\n- {key}: {value}"));
            }
        }
        parts.render()
    }
}
