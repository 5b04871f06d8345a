# R kernel of the box code daemon (kernels.py): one R process per context (issue 33, E2B's
# `r` language). Cells arrive as JSON lines on the fd named by BOX_CODE_IN ({code, env},
# {setenv} or {chdir}; stdin is the cell's, /dev/null); each runs in the global environment,
# expression by expression, as R's console runs it: what it prints goes to stdout and stderr
# as it happens, a visible value is a result in IRkernel's MIME bundle (IRdisplay and repr,
# which r-cran-irkernel brings: `[1] "a"` as text/plain, a data frame also as HTML, Markdown
# and LaTeX), a plot is a PNG (the `repr.plot.*` options IRkernel users set), an error ends the
# cell as IRkernel reports it (name "ERROR"). Results, error and end are JSON lines on the fd
# named by BOX_CODE_FD. SIGINT interrupts a running cell.
local({
  requests <- file(paste0("/proc/self/fd/", Sys.getenv("BOX_CODE_IN")), open = "r", raw = TRUE)
  events <- file(paste0("/proc/self/fd/", Sys.getenv("BOX_CODE_FD")), open = "w", raw = TRUE)
  Sys.unsetenv(c("BOX_CODE_IN", "BOX_CODE_FD"))
  report <- function(e) {
    writeLines(jsonlite::toJSON(e, auto_unbox = TRUE, null = "null", digits = NA), events, useBytes = TRUE)
    flush(events)
  }
  count <- 0L
  plots <- file.path(tempdir(), "plots")
  dir.create(plots, showWarnings = FALSE)
  # warnings print as they happen, on stderr ("Warning message:" after the cell is for a console);
  # a cell's first plot opens a PNG device of the repr.plot size at that moment (R opens
  # options("device") when none is open), the cell's end closes it and sends its pages
  options(warn = 1, device = function(...) {
    grDevices::png(file.path(plots, "plot%03d.png"),
      width = getOption("repr.plot.width", 7), height = getOption("repr.plot.height", 7),
      res = getOption("repr.plot.res", 120), units = "in", type = "cairo"
    )
  })

  # IRkernel's bundle of a value: its text, then the richer forms repr has for it
  bundle <- function(value) {
    text <- tryCatch(IRdisplay::prepare_mimebundle(value, "text/plain")$data[["text/plain"]], error = function(e) NULL)
    if (is.null(text)) text <- paste(utils::capture.output(print(value)), collapse = "\n")
    rich <- tryCatch(IRdisplay::prepare_mimebundle(value, c("text/html", "text/markdown", "text/latex"))$data, error = function(e) list())
    lapply(c(list("text/plain" = text), rich), function(d) if (is.character(d)) paste(d, collapse = "\n") else d)
  }

  plotted <- function() {
    grDevices::graphics.off()
    for (f in sort(list.files(plots, full.names = TRUE))) {
      png <- jsonlite::base64_enc(readBin(f, "raw", file.info(f)$size))
      report(list(type = "result", result = list("image/png" = gsub("\n", "", png), "text/plain" = "plot without title"), main = FALSE))
      unlink(f)
    }
  }

  # a condition of the cell's own top level (or its parse): R's console names no call for it
  ours <- function(cond) {
    call <- conditionCall(cond)
    identical(call, quote(eval(expr, globalenv()))) || identical(call, quote(parse(text = req$code, keep.source = FALSE)))
  }

  run <- function(req) {
    count <<- count + 1L
    saved <- list()
    for (k in names(req$env)) {
      saved[[k]] <- Sys.getenv(k, unset = NA)
      do.call(Sys.setenv, stats::setNames(list(req$env[[k]]), k))
    }
    failed <- NULL
    tryCatch(
      {
        exprs <- parse(text = req$code, keep.source = FALSE)
        for (expr in exprs) {
          v <- withCallingHandlers(withVisible(eval(expr, globalenv())), warning = function(w) {
            if (ours(w)) {
              message("Warning: ", conditionMessage(w))
              invokeRestart("muffleWarning")
            }
          })
          # as IRkernel: each visible value is display data, none the cell's "main" result
          if (v$visible) report(list(type = "result", result = bundle(v$value), main = FALSE))
        }
      },
      interrupt = function(e) failed <<- list(name = "KeyboardInterrupt", value = "", traceback = "KeyboardInterrupt"),
      error = function(e) {
        if (ours(e)) e$call <- NULL
        failed <<- list(name = "ERROR", value = toString(e), traceback = paste0(toString(e), "Traceback:\n"))
      }
    )
    flush(stdout())
    flush(stderr())
    plotted()
    if (!is.null(failed)) report(list(type = "error", error = failed))
    for (k in names(saved)) {
      if (is.na(saved[[k]])) Sys.unsetenv(k) else do.call(Sys.setenv, stats::setNames(list(saved[[k]]), k))
    }
    report(list(type = "end", execution_count = count))
  }

  repeat {
    # an interrupt between cells changes nothing
    line <- tryCatch(readLines(requests, n = 1L, warn = FALSE), interrupt = function(e) NA_character_)
    if (length(line) == 0L) break
    if (is.na(line)) next
    req <- jsonlite::fromJSON(line, simplifyVector = FALSE)
    if (!is.null(req$setenv)) {
      if (length(req$setenv)) do.call(Sys.setenv, req$setenv)
    } else if (!is.null(req$chdir)) {
      setwd(req$chdir)
    } else {
      run(req)
    }
  }
})
