package gonja

import "github.com/webgguf/webgguf/chat/internal/gonja/config"

type Config config.Config

var NewConfig = config.New
