//! Which endpoint, model, key and tool protocol a run uses.
//!
//! Precedence, per setting: command-line flags ([`Flags`]) > environment >
//! `[workspace.metadata.agenticcann.llm]` of the workspace `Cargo.toml` ([`Metadata`]) >
//! defaults (DeepSeek: [`DEFAULT_BASE_URL`], [`DEFAULT_MODEL`]; tool protocol `auto`).
//!
//! Environment variables (read through `agenticcann_build::env`, names in
//! [`agenticcann_build::env::LLM_BASE_URL`] and its neighbours):
//! `AGENTICCANN_LLM_BASE_URL`, `AGENTICCANN_LLM_MODEL`, and the key from the first set of
//! `AGENTICCANN_LLM_API_KEY`, `DEEPSEEK_API_KEY`, `OPENAI_API_KEY`. The key is never read
//! from `Cargo.toml` (it would end up in version control).
//!
//! A localhost endpoint (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`) needs no key; a
//! remote one without a key is [`LlmError::MissingApiKey`], naming the variables.

use std::time::Duration;

use secrecy::SecretString;
use serde::Deserialize;

use super::client::ClientOptions;
use super::{LlmError, ToolProtocol};
use agenticcann_build::env as vars;

/// DeepSeek's OpenAI-compatible endpoint (<https://api-docs.deepseek.com/>).
pub const DEFAULT_BASE_URL: &str = "https://api.deepseek.com";
/// DeepSeek's chat model (DeepSeek-V3 family; function calling supported).
pub const DEFAULT_MODEL: &str = "deepseek-chat";

/// The key variables, in the order they are tried.
pub const API_KEY_VARS: [&str; 3] = [
    vars::LLM_API_KEY,
    vars::DEEPSEEK_API_KEY,
    vars::OPENAI_API_KEY,
];

/// Settings given on the command line (`None`: not given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--tool-protocol`.
    pub tool_protocol: Option<ToolProtocol>,
}

/// `[workspace.metadata.agenticcann.llm]`: every key optional; unknown keys are an error.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// The endpoint.
    pub base_url: Option<String>,
    /// The model name.
    pub model: Option<String>,
    /// `auto`, `native` or `text`.
    pub tool_protocol: Option<ToolProtocol>,
    /// Connect timeout, seconds.
    pub connect_timeout_s: Option<f64>,
    /// Whole-exchange timeout, seconds.
    pub timeout_s: Option<f64>,
    /// Retries after the first attempt.
    pub max_retries: Option<u32>,
    /// Calls in flight at once.
    pub max_concurrent: Option<usize>,
}

impl Metadata {
    /// The `llm` table of a workspace manifest's `[workspace.metadata.agenticcann]`
    /// (`manifest` is the whole parsed `Cargo.toml`); default when absent. `origin` names the
    /// file in errors.
    pub fn from_manifest(manifest: &toml::Table, origin: &str) -> Result<Metadata, LlmError> {
        let table = manifest
            .get("workspace")
            .and_then(|w| w.get("metadata"))
            .and_then(|m| m.get("agenticcann"))
            .and_then(|a| a.get("llm"));
        match table {
            None => Ok(Metadata::default()),
            Some(t) => Metadata::from_table(t, origin),
        }
    }

    /// Parses the `llm` table itself.
    pub fn from_table(table: &toml::Value, origin: &str) -> Result<Metadata, LlmError> {
        table.clone().try_into().map_err(|e: toml::de::Error| {
            LlmError::Config(format!(
                "{origin}: [workspace.metadata.agenticcann.llm]: {}",
                e.message()
            ))
        })
    }
}

/// Where a setting's value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag.
    Flag,
    /// An environment variable (its name).
    Env(&'static str),
    /// The workspace metadata.
    Metadata,
    /// The built-in default.
    Default,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Flag => f.write_str("flag"),
            Source::Env(n) => write!(f, "${n}"),
            Source::Metadata => f.write_str("[workspace.metadata.agenticcann.llm]"),
            Source::Default => f.write_str("default"),
        }
    }
}

/// The resolved settings of a run. `Debug` shows the key as `<redacted>`.
#[derive(Clone)]
pub struct Settings {
    /// The endpoint, without a trailing `/`.
    pub base_url: String,
    /// The model name.
    pub model: String,
    /// The key (`None` for a localhost endpoint without one).
    pub api_key: Option<SecretString>,
    /// The variable the key came from.
    pub api_key_var: Option<&'static str>,
    /// The tool protocol.
    pub tool_protocol: ToolProtocol,
    /// Timeouts, retries, concurrency.
    pub client: ClientOptions,
    /// Where `base_url`, `model` and `tool_protocol` came from.
    pub sources: [Source; 3],
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("api_key_var", &self.api_key_var)
            .field("tool_protocol", &self.tool_protocol)
            .field("client", &self.client)
            .field("sources", &self.sources)
            .finish()
    }
}

impl Settings {
    /// Whether the endpoint is on this machine (no key needed).
    pub fn is_local(&self) -> bool {
        is_local(&self.base_url)
    }

    /// One line for logs and manifests: endpoint, model, protocol and where the key came
    /// from (the variable's name, never the value).
    pub fn describe(&self) -> String {
        format!(
            "{} model {} (tool protocol {}, key {})",
            self.base_url,
            self.model,
            self.tool_protocol,
            self.api_key_var
                .map_or("none".to_string(), |v| format!("from ${v}"))
        )
    }
}

/// Resolves the settings: `flags` > `env` (a lookup such as `agenticcann_build::env::var`
/// or `Env::lookup`) > `metadata` > defaults. Errors: a base URL that is not `http(s)://…`,
/// a bad value in the metadata, or a remote endpoint with no key
/// ([`LlmError::MissingApiKey`]).
pub fn resolve(
    flags: &Flags,
    env: &dyn Fn(&str) -> Option<String>,
    metadata: &Metadata,
) -> Result<Settings, LlmError> {
    let pick = |flag: &Option<String>, var: &'static str, meta: &Option<String>, default: &str| {
        if let Some(v) = flag.as_ref().filter(|v| !v.trim().is_empty()) {
            (v.trim().to_string(), Source::Flag)
        } else if let Some(v) = env(var).filter(|v| !v.trim().is_empty()) {
            (v.trim().to_string(), Source::Env(var))
        } else if let Some(v) = meta.as_ref().filter(|v| !v.trim().is_empty()) {
            (v.trim().to_string(), Source::Metadata)
        } else {
            (default.to_string(), Source::Default)
        }
    };
    let (base_url, base_src) = pick(
        &flags.base_url,
        vars::LLM_BASE_URL,
        &metadata.base_url,
        DEFAULT_BASE_URL,
    );
    let base_url = base_url.trim_end_matches('/').to_string();
    let parsed = reqwest::Url::parse(&base_url).map_err(|e| {
        LlmError::Config(format!(
            "base URL `{base_url}` (from {base_src}) does not parse: {e}"
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(LlmError::Config(format!(
            "base URL `{base_url}` (from {base_src}) is not an http:// or https:// URL with a host"
        )));
    }
    let (model, model_src) = pick(
        &flags.model,
        vars::LLM_MODEL,
        &metadata.model,
        DEFAULT_MODEL,
    );
    let (tool_protocol, proto_src) = match (flags.tool_protocol, metadata.tool_protocol) {
        (Some(p), _) => (p, Source::Flag),
        (None, Some(p)) => (p, Source::Metadata),
        (None, None) => (ToolProtocol::Auto, Source::Default),
    };
    let found = API_KEY_VARS.iter().find_map(|&name| {
        env(name)
            .filter(|v| !v.trim().is_empty())
            .map(|v| (name, v))
    });
    let (api_key, api_key_var) = match found {
        Some((name, v)) => (Some(SecretString::from(v.trim().to_string())), Some(name)),
        None => (None, None),
    };
    if api_key.is_none() && !is_local(&base_url) {
        return Err(LlmError::MissingApiKey {
            base_url,
            vars: API_KEY_VARS.iter().map(|s| s.to_string()).collect(),
        });
    }
    let mut client = ClientOptions::default();
    let secs = |v: f64, what: &str| -> Result<Duration, LlmError> {
        if v.is_finite() && v > 0.0 && v < 1e7 {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(LlmError::Config(format!(
                "[workspace.metadata.agenticcann.llm] {what} = {v} is not a positive number of seconds"
            )))
        }
    };
    if let Some(v) = metadata.connect_timeout_s {
        client.connect_timeout = secs(v, "connect_timeout_s")?;
    }
    if let Some(v) = metadata.timeout_s {
        client.timeout = secs(v, "timeout_s")?;
    }
    if let Some(v) = metadata.max_retries {
        client.max_retries = v;
    }
    if let Some(v) = metadata.max_concurrent {
        if v == 0 {
            return Err(LlmError::Config(
                "[workspace.metadata.agenticcann.llm] max_concurrent = 0: at least 1".into(),
            ));
        }
        client.max_concurrent = v;
    }
    Ok(Settings {
        base_url,
        model,
        api_key,
        api_key_var,
        tool_protocol,
        client,
        sources: [base_src, model_src, proto_src],
    })
}

/// [`resolve`] with the process environment (through `agenticcann_build::env::var`).
pub fn resolve_from_env(flags: &Flags, metadata: &Metadata) -> Result<Settings, LlmError> {
    resolve(flags, &vars::var, metadata)
}

/// Whether `base_url`'s host is this machine: `localhost`, `*.localhost`, `127.0.0.0/8`,
/// `::1` (and `0.0.0.0`, which clients reach as localhost).
pub fn is_local(base_url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(base_url) else {
        return false;
    };
    match u.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback() || ip.is_unspecified(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;
    use std::collections::BTreeMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn defaults_need_a_key_and_name_the_variables() {
        let e = resolve(&Flags::default(), &env_of(&[]), &Metadata::default()).unwrap_err();
        let s = e.to_string();
        for v in API_KEY_VARS {
            assert!(s.contains(v), "{s}");
        }
        assert!(s.contains(DEFAULT_BASE_URL), "{s}");
        let ok = resolve(
            &Flags::default(),
            &env_of(&[("DEEPSEEK_API_KEY", "sk-d")]),
            &Metadata::default(),
        )
        .unwrap();
        assert_eq!(ok.base_url, DEFAULT_BASE_URL);
        assert_eq!(ok.model, DEFAULT_MODEL);
        assert_eq!(ok.api_key_var, Some("DEEPSEEK_API_KEY"));
        assert_eq!(ok.api_key.unwrap().expose_secret(), "sk-d");
    }

    #[test]
    fn flags_beat_env_beat_metadata() {
        let meta = Metadata {
            base_url: Some("http://meta:1/v1".into()),
            model: Some("meta-model".into()),
            tool_protocol: Some(ToolProtocol::Text),
            ..Metadata::default()
        };
        let env = env_of(&[
            ("AGENTICCANN_LLM_BASE_URL", "http://127.0.0.1:8080/v1/"),
            ("AGENTICCANN_LLM_MODEL", "env-model"),
            ("AGENTICCANN_LLM_API_KEY", "k1"),
            ("OPENAI_API_KEY", "k3"),
        ]);
        let s = resolve(&Flags::default(), &env, &meta).unwrap();
        assert_eq!(s.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(s.model, "env-model");
        assert_eq!(s.tool_protocol, ToolProtocol::Text);
        assert_eq!(s.api_key_var, Some("AGENTICCANN_LLM_API_KEY"));
        assert_eq!(s.sources[0], Source::Env("AGENTICCANN_LLM_BASE_URL"));
        let flags = Flags {
            base_url: Some("http://localhost:9/v1".into()),
            model: Some("flag-model".into()),
            tool_protocol: Some(ToolProtocol::Native),
        };
        let s = resolve(&flags, &env, &meta).unwrap();
        assert_eq!(
            (s.base_url.as_str(), s.model.as_str(), s.tool_protocol),
            ("http://localhost:9/v1", "flag-model", ToolProtocol::Native)
        );
        let s = resolve(
            &Flags::default(),
            &env_of(&[("OPENAI_API_KEY", "k3")]),
            &meta,
        )
        .unwrap();
        assert_eq!(s.base_url, "http://meta:1/v1");
        assert_eq!(s.model, "meta-model");
        assert!(!format!("{s:?}").contains("k3"));
        assert!(!s.describe().contains("k3"));
    }

    #[test]
    fn localhost_needs_no_key() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://api.localhost/v1",
        ] {
            let f = Flags {
                base_url: Some(url.into()),
                ..Flags::default()
            };
            let s = resolve(&f, &env_of(&[]), &Metadata::default()).unwrap();
            assert!(s.api_key.is_none() && s.is_local(), "{url}");
        }
        assert!(!is_local("https://localhost.example.com/v1"));
        let bad = Flags {
            base_url: Some("not a url".into()),
            ..Flags::default()
        };
        let e = resolve(&bad, &env_of(&[]), &Metadata::default()).unwrap_err();
        assert!(e.to_string().contains("not a url"), "{e}");
    }

    #[test]
    fn metadata_from_a_manifest() {
        let manifest: toml::Table = toml::from_str(
            r#"
            [workspace.metadata.agenticcann.llm]
            base_url = "http://127.0.0.1:1/v1"
            model = "m"
            tool_protocol = "text"
            timeout_s = 5
            "#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // `timeout_s = 5` is an integer in TOML; the field is f64.
        let m = Metadata::from_manifest(&manifest, "Cargo.toml");
        let m = match m {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(m.tool_protocol, Some(ToolProtocol::Text));
        assert_eq!(m.timeout_s, Some(5.0));
        let bad: toml::Table =
            toml::from_str("[workspace.metadata.agenticcann.llm]\napi_key = \"x\"\n").unwrap();
        let e = Metadata::from_manifest(&bad, "ws/Cargo.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("ws/Cargo.toml") && e.contains("api_key"), "{e}");
        let none: toml::Table = toml::from_str("[workspace]\n").unwrap();
        assert_eq!(
            Metadata::from_manifest(&none, "x").unwrap(),
            Metadata::default()
        );
    }
}
