#!/usr/bin/env bash
# Builds the Teams app package to upload (Teams: Apps, Manage your apps, Upload an app):
# manifest.json with the bot's Microsoft App ID (TEAMS_APP_ID) in id and botId, and the two
# icons, zipped flat as Teams wants them.
# Usage: deploy/teams/package.sh APP_ID [OUT.zip]   (default out: inquiry-bot-teams.zip)
set -euo pipefail
app_id=${1:-}
out=$(realpath -m "${2:-inquiry-bot-teams.zip}")
if ! [[ $app_id =~ ^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$ ]]; then
  echo "usage: $0 APP_ID [OUT.zip]: APP_ID is the bot's Microsoft App ID (TEAMS_APP_ID), a GUID such as 0b6fe6d1-fece-44f7-9a48-56465e2d5ab8" >&2
  exit 2
fi
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s/00000000-0000-0000-0000-000000000000/$app_id/g" "$dir/manifest.json" >"$tmp/manifest.json"
cp "$dir/color.png" "$dir/outline.png" "$tmp/"
(cd "$tmp" && python3 -m zipfile -c "$out" manifest.json color.png outline.png)
echo "wrote $out: upload it in Teams (Apps, Manage your apps, Upload an app), then add the app to a team or chat"
