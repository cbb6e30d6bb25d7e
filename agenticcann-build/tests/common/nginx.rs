//! A real HTTP server for the remote-store tests: nginx from Debian with WebDAV `PUT`,
//! started per test on a free port with its own configuration in a temporary folder, and
//! stopped when dropped. `.ci/run` installs it.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const INSTALL: &str = "sudo apt-get install -y nginx";

pub struct Nginx {
    child: Child,
    pub dir: tempfile::TempDir,
    pub port: u16,
}

fn nginx_binary() -> PathBuf {
    for p in ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"] {
        if Path::new(p).is_file() {
            return PathBuf::from(p);
        }
    }
    if let Some(path) = agenticcann_build::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            if d.join("nginx").is_file() {
                return d.join("nginx");
            }
        }
    }
    panic!("nginx is not installed; the remote-store tests need a real HTTP server. Install it with:\n    {INSTALL}");
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Nginx {
    pub fn start() -> Nginx {
        Nginx::start_with(None)
    }

    /// With `Some((user, password))`, every request needs that basic auth.
    pub fn start_with(auth: Option<(&str, &str)>) -> Nginx {
        let bin = nginx_binary();
        let mut last = String::new();
        for _ in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let port = free_port();
            let d = dir.path();
            std::fs::create_dir_all(d.join("data")).unwrap();
            let auth_conf = match auth {
                Some((user, password)) => {
                    std::fs::write(d.join("htpasswd"), format!("{user}:{{PLAIN}}{password}\n"))
                        .unwrap();
                    format!("auth_basic \"agenticcann\";\n      auth_basic_user_file {}/htpasswd;\n      ", d.display())
                }
                None => String::new(),
            };
            let conf = format!(
                "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
                 error_log {d}/error.log info;\nevents {{ worker_connections 64; }}\n\
                 http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/body;\n  \
                 proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  \
                 uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
                 server {{\n    listen 127.0.0.1:{port};\n    root {d}/data;\n    \
                 location / {{\n      {auth_conf}dav_methods PUT;\n      create_full_put_path on;\n      \
                 client_max_body_size 64m;\n    }}\n  }}\n}}\n",
                d = d.display()
            );
            std::fs::write(d.join("nginx.conf"), conf).unwrap();
            let mut child = Command::new(&bin)
                .arg("-p")
                .arg(d)
                .arg("-c")
                .arg(d.join("nginx.conf"))
                .arg("-e")
                .arg(d.join("error.log"))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Nginx { child, dir, port };
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
            last = std::fs::read_to_string(d.join("error.log")).unwrap_or_default();
        }
        panic!("nginx did not start:\n{last}");
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Requests the server has logged so far.
    pub fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("access.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The number of requests logged once the log has stopped growing: nginx writes a
    /// request's log line after it sent the response, so a client can see the response of
    /// its last request before that request is in the log (seen as a flaky count under
    /// load). Waits until two reads 100 ms apart agree (at most 5 s).
    pub fn settled_request_count(&self) -> usize {
        let mut last = self.requests().len();
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let now = self.requests().len();
            if now == last {
                return now;
            }
            last = now;
        }
        last
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
