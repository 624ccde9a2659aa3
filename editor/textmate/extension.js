// SPDX-License-Identifier: Apache-2.0
// extension.js - the VS Code side of pac's language server: starts
// `pac --lsp` (the setting parray.server.path, default "pac" on PATH, with
// the arguments parray.server.args, such as -I folders) for Parray files.
// Needs the vscode-languageclient package: run `npm install --omit=dev`
// in this folder once (editor/README.md).
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const cfg = vscode.workspace.getConfiguration("parray.server");
  const server = { command: cfg.get("path", "pac"), args: ["--lsp", ...cfg.get("args", [])] };
  client = new LanguageClient("parray", "Parray (pac)", server, {
    documentSelector: [{ scheme: "file", language: "parray" }],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
